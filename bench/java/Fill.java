/* bench/java/Fill.java - fills the heap with about N objects for the HPROF
 * benchmark (bench/run.sh): rounds of eleven objects (four nodes in one
 * long chain, two leaves, three pairs, a byte array, an object array), every
 * object reachable from the static field `head`. Prints its pid once the heap is full,
 * then waits for a line on stdin. */
public class Fill {
    static final class Node {
        final Node next;
        final Object other;
        final int index;

        Node(Node next, Object other, int index) {
            this.next = next;
            this.other = other;
            this.index = index;
        }
    }

    static final class Leaf {
        final long value;

        Leaf(long value) {
            this.value = value;
        }
    }

    static final class Pair {
        final Object left, right;

        Pair(Object left, Object right) {
            this.left = left;
            this.right = right;
        }
    }

    static Node head;
    static Object[] keep = new Object[4096];

    public static void main(String[] args) throws Exception {
        long n = Long.parseLong(args[0]);
        Node prev = null;
        Object last = null;
        /* Eleven objects a round, each reachable from the next round's first node. */
        for (long i = 0; i + 11 <= n; i += 11) {
            for (int k = 0; k < 4; k++) {
                prev = new Node(prev, last, (int) i + k);
                last = null;
            }
            Leaf leaf = new Leaf(i);
            Pair pair = new Pair(leaf, prev);
            byte[] bytes = new byte[8 + (int) (i % 32)];
            Object[] array = { prev, pair, bytes, null };
            Pair outer = new Pair(array, new Leaf(-i));
            keep[(int) (i / 11 % keep.length)] = outer;
            last = new Pair(outer, null);
        }
        head = new Node(prev, last, -1);
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        System.out.println(head.index + keep.length);
    }
}
