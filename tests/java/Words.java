import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/* A service whose heap has three things an engineer must be told about in
 * words (tests/cli/test_words_jvm.sh): a static registry that leaks
 * (OrderService.SESSIONS, SESSIONS sessions of 512 bytes), a worker thread
 * named "worker-1" holding a batch in a local of OrderWorker.run while it
 * waits, and a static linked list of CHAIN nodes (Chain.head). Prints its
 * pid, then "line N" (the source line where OrderWorker.run waits, as the
 * JVM's own stack trace gives it), then "ready"; ends at a line on stdin. */
public class Words {
    static final int SESSIONS = 3000, BATCH = 2000, CHAIN = 20000;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < SESSIONS; i++)
            OrderService.SESSIONS.put(i, new Session(i));
        Node head = null;
        for (int i = 0; i < CHAIN; i++) {
            Node n = new Node();
            n.next = head;
            head = n;
        }
        Chain.head = head;
        Thread t = new Thread(new OrderWorker(), "worker-1");
        t.setDaemon(true);
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        t.start();
        synchronized (OrderWorker.LOCK) {
            while (OrderWorker.line == 0)
                OrderWorker.LOCK.wait();
        }
        System.out.println("line " + OrderWorker.line);
        System.out.println("ready");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
    }
}

class OrderService {
    static final ConcurrentHashMap<Integer, Session> SESSIONS = new ConcurrentHashMap<>();
}

class Session {
    final int id;
    final byte[] data = new byte[512];

    Session(int id) {
        this.id = id;
    }
}

class Node {
    Node next;
    long value;
}

class Chain {
    static Node head;
}

class OrderWorker implements Runnable {
    static final Object LOCK = new Object();
    static int line;

    public void run() {
        List<byte[]> batch = new ArrayList<>();
        for (int i = 0; i < Words.BATCH; i++)
            batch.add(new byte[256]);
        synchronized (LOCK) {
            for (;;) {
                line = new Throwable().getStackTrace()[0].getLineNumber(); LOCK.notifyAll(); try { LOCK.wait(); } catch (InterruptedException e) { break; }
            }
        }
        System.out.println(batch.size());
    }
}
