/* tests/java/Waste.java - plants known waste for tests/cli/test_waste_jvm.sh.
 * Every planted object is made at run time and kept reachable from static
 * fields; the collections are subclasses of their java.util class (so that
 * their type rows hold the planted ones only, and the subclass rule of
 * `gcheap waste` is exercised). Prints its pid, then waits for a line on
 * stdin. With the argument "clean" it plants nothing (the dump then must show
 * no section above the default thresholds). What is planted (the test checks
 * each against the dump's sizes):
 *   DUP_STRINGS copies of "gcheap waste dup <k>" for k = 1 (1000 copies),
 *   2 (37 copies, UTF-16: a U+2603 in it), 3 (9 copies: under --min-count);
 *   50 byte[1000] filled with 7, 20 int[64] holding 3*i;
 *   2000 empty WasteList(16), each held by WasteHolder.list;
 *   500 empty WasteMap (no table yet), held by an Object[];
 *   300 empty WasteSet;
 *   100 SparseList(1000) holding 5 elements each. */
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;

public class Waste {
    static class WasteList extends ArrayList<Object> {
        WasteList(int capacity) { super(capacity); }
    }
    static class SparseList extends ArrayList<Object> {
        SparseList(int capacity) { super(capacity); }
    }
    static class WasteMap extends HashMap<Object, Object> {}
    static class WasteSet extends HashSet<Object> {}
    static class WasteHolder {
        List<Object> list;
    }
    static class ArrayHolder {
        byte[] bytes;
        int[] ints;
    }

    static final List<Object> kept = new ArrayList<>();

    static String text(int k) {
        StringBuilder sb = new StringBuilder();
        sb.append("gcheap waste dup ").append(k);
        if (k == 2)
            sb.append(" snowman \u2603");
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !args[0].equals("clean"))
            plant();
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        System.out.println(kept.size());
    }

    static void plant() {
        int[][] groups = { { 1, 1000 }, { 2, 37 }, { 3, 9 } };
        for (int[] g : groups)
            for (int i = 0; i < g[1]; i++)
                kept.add(new String(text(g[0]).toCharArray()));
        for (int i = 0; i < 50; i++) {
            ArrayHolder h = new ArrayHolder();
            h.bytes = new byte[1000];
            Arrays.fill(h.bytes, (byte) 7);
            kept.add(h);
        }
        for (int i = 0; i < 20; i++) {
            ArrayHolder h = new ArrayHolder();
            h.ints = new int[64];
            for (int j = 0; j < 64; j++)
                h.ints[j] = 3 * j;
            kept.add(h);
        }
        for (int i = 0; i < 2000; i++) {
            WasteHolder h = new WasteHolder();
            h.list = new WasteList(16);
            kept.add(h);
        }
        Object[] maps = new Object[500];
        for (int i = 0; i < maps.length; i++)
            maps[i] = new WasteMap();
        kept.add(maps);
        for (int i = 0; i < 300; i++)
            kept.add(new WasteSet());
        for (int i = 0; i < 100; i++) {
            SparseList l = new SparseList(1000);
            for (int j = 0; j < 5; j++)
                l.add(Integer.valueOf(j));
            kept.add(l);
        }
    }
}
