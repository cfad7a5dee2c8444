package clean;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

@WebListener
public class CleanListener implements ServletContextListener {
    static final byte[] CACHE = new byte[1 << 20];
    public void contextInitialized(ServletContextEvent e) { }
    public void contextDestroyed(ServletContextEvent e) { }
}
