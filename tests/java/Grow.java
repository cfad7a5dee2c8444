import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/* A heap that grows on request, for `gcheap leaks` on real HPROF dumps
 * (tests/cli/test_hprof_leaks.sh): prints its pid, then for every line read
 * on stdin adds N Item objects (each holding its own byte[32]) to a static
 * list and N short-lived Churn objects that nothing keeps, and prints
 * "grown TOTAL"; a line "map" instead puts N Session objects in a static
 * HashMap (prints "mapped TOTAL"), a line "idle" changes nothing (prints
 * "idle"). Ends at end of input. */
public class Grow {
    static final List<Item> items = new ArrayList<>();
    static final Map<Integer, Session> sessions = new HashMap<>();
    static Object sink;

    static class Session {
        final int id;

        Session(int id) {
            this.id = id;
        }
    }

    static class Item {
        final long id;
        final byte[] data = new byte[32];

        Item(long id) {
            this.id = id;
        }
    }

    static class Churn {
        final long value;

        Churn(long value) {
            this.value = value;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("idle")) {
                System.out.println("idle");
                System.out.flush();
                continue;
            }
            if (line.equals("map")) {
                for (int i = 0; i < n; i++)
                    sessions.put(sessions.size(), new Session(i));
                System.out.println("mapped " + sessions.size());
                System.out.flush();
                continue;
            }
            for (int i = 0; i < n; i++) {
                items.add(new Item(items.size()));
                sink = new Churn(i);
            }
            System.out.println("grown " + items.size());
            System.out.flush();
        }
    }
}
