package leaky;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/* Starts a thread it never stops: the thread's class and its context class
 * loader are the web application's, so the loader outlives the application. */
@WebListener
public class LeakyListener implements ServletContextListener {
    static final byte[] CACHE = new byte[1 << 20];
    public void contextInitialized(ServletContextEvent e) {
        Thread t = new Thread(new Runnable() {
            public void run() {
                while (true) {
                    try { Thread.sleep(1000); } catch (InterruptedException x) { return; }
                }
            }
        }, "leaky-poller");
        t.setDaemon(true);
        t.start();
    }
    public void contextDestroyed(ServletContextEvent e) { }
}
