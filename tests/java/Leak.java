import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.Flow;
import java.util.function.Supplier;

/* A small known heap for gcheap's HPROF tests: a static list that leaks
 * sessions, a linked chain, every kind of array, weak and soft references,
 * a lambda (a hidden class). Prints its pid, then waits for a line on stdin
 * (the test takes the class histogram and the heap dump meanwhile). */
public class Leak {
    static final List<Session> sessions = new ArrayList<>();
    static Session head;
    static final Map<String, Session> byUser = new HashMap<>();
    static byte[] strongTarget = new byte[4096];
    static WeakReference<byte[]> weakToStrong = new WeakReference<>(strongTarget);
    static SoftReference<Object> soft = new SoftReference<>(new Object());
    static Supplier<String> lambda = () -> "hello from a lambda";
    static Object[] arrays = {
        new boolean[3], new char[5], new float[7], new double[9], new byte[11],
        new short[13], new int[15], new long[17], new Object[19], new String[2][3], new int[4][5],
    };

    /* Classes HotSpot pads for @jdk.internal.vm.annotation.Contended (issue
     * 36, finding 11): a pool with a work queue, a publisher with a
     * subscription, and one Striped64$Cell and ConcurrentHashMap$CounterCell
     * made through their constructors (the test opens the packages; without
     * that they are skipped). Threads (and Finalizer$FinalizerThread) are
     * always there. */
    static ForkJoinPool pool = new ForkJoinPool(1);
    static SubmissionPublisher<String> publisher = new SubmissionPublisher<>(Runnable::run, 4);
    static final List<Object> padded = new ArrayList<>();

    static void makePadded() throws Exception {
        pool.submit(() -> 1).get();
        publisher.subscribe(new Flow.Subscriber<String>() {
            public void onSubscribe(Flow.Subscription s) { }
            public void onNext(String item) { }
            public void onError(Throwable t) { }
            public void onComplete() { }
        });
        for (String name : new String[] { "java.util.concurrent.atomic.Striped64$Cell",
                                          "java.util.concurrent.ConcurrentHashMap$CounterCell" }) {
            try {
                java.lang.reflect.Constructor<?> c = Class.forName(name).getDeclaredConstructor(long.class);
                c.setAccessible(true);
                padded.add(c.newInstance(7L));
            } catch (ReflectiveOperationException | RuntimeException e) {
                System.err.println("Leak: no " + name + ": " + e);
            }
        }
    }

    static class Session {
        final long id;
        final String user;
        final byte[] payload;
        Session next;
        char grade = 'a';
        boolean open = true;
        short port = 80;
        float load = 0.5f;
        double score = 1.5;

        Session(long id, String user, byte[] payload) {
            this.id = id;
            this.user = user;
            this.payload = payload;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        makePadded();
        for (int i = 0; i < n; i++) {
            Session s = new Session(i, "user" + i, new byte[i % 64]);
            sessions.add(s);
            if (i % 10 == 0)
                byUser.put(s.user, s);
            s.next = head;
            head = s;
        }
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        System.out.println(sessions.size() + byUser.size() + lambda.get().length() + arrays.length);
    }
}
