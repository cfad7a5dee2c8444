import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/* A service whose heap has three things an engineer must be told about in
 * words (tests/cli/test_words_jvm.sh): a static registry that leaks
 * (OrderService.SESSIONS, SESSIONS sessions of 512 bytes), a worker thread
 * named "worker-1" holding a batch in a local of OrderWorker.run while it
 * waits, and a static linked list of CHAIN nodes (Chain.head). Prints its
 * pid, then "line N" (the source line where OrderWorker.run waits, as the
 * JVM's own stack trace gives it), the class names of the loaders of Words
 * and of two Plugin classes each loaded by its own URLClassLoader from the
 * folder args[0] ("loader NAME"), the JVM's name of the lambda class of
 * OrderService.TASK ("lambda NAME"), then "ready"; ends at a line on stdin. */
public class Words {
    static final int SESSIONS = 3000, BATCH = 2000, CHAIN = 20000;
    static final List<Object> PLUGINS = new ArrayList<>();

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
        URL[] urls = { new File(args[0]).toURI().toURL() };
        System.out.println("loader " + Words.class.getClassLoader().getClass().getName());
        for (int i = 0; i < 2; i++) {
            Class<?> c = new URLClassLoader(urls, null).loadClass("Plugin");
            java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
            k.setAccessible(true);
            PLUGINS.add(k.newInstance());
            System.out.println("loader " + c.getClassLoader().getClass().getName());
        }
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
        System.out.println("lambda " + OrderService.TASK.getClass().getName());
        System.out.println("ready");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
    }
}

class Plugin {
    public Plugin() {
    }
}

class OrderService {
    static final ConcurrentHashMap<Integer, Session> SESSIONS = new ConcurrentHashMap<>();
    static final Runnable TASK = () -> SESSIONS.clear();
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
