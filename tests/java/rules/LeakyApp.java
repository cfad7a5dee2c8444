import android.app.Activity;
import android.content.Context;
import android.os.MessageQueue;
import android.view.View;
import androidx.fragment.app.Fragment;
import java.util.ArrayList;
import java.util.List;

/* An "app" on the Android stand-ins (README.md): it opens two activities, a
 * fragment and a view, then finishes one activity. With "leak" a listener
 * registered on a static bus keeps the finished activity (and its view, its
 * fragment) reachable; with "clean" the listener is unregistered in onDestroy,
 * as it should be. Either way a running activity, an attached view and an
 * added fragment stay reachable: no rule may report them. Prints "ready",
 * waits for a line on stdin (the test dumps the heap meanwhile). */
public class LeakyApp {
    interface Listener { void onEvent(String e); }

    static final class EventBus {
        static final List<Listener> listeners = new ArrayList<>();
    }

    static final class MainActivity extends Activity {
        final View content = new View(this);
        final Fragment details = new Fragment("details");
        final byte[] bitmap = new byte[64 * 1024];
        final Listener listener = new Listener() {
            public void onEvent(String e) { content.detach(); }
        };
        void onCreate() { EventBus.listeners.add(listener); }
        void onDestroy(boolean clean) {
            content.detach();
            details.remove();
            if (clean)
                EventBus.listeners.remove(listener);
        }
    }

    static final class SettingsActivity extends Activity {
        final View content = new View(this);
    }

    static Activity current;
    static final List<Fragment> shown = new ArrayList<>();
    static final MessageQueue mainQueue = new MessageQueue();

    public static void main(String[] args) throws Exception {
        boolean clean = args.length > 0 && args[0].equals("clean");
        MainActivity main = new MainActivity();
        main.onCreate();
        SettingsActivity settings = new SettingsActivity();
        current = settings;
        shown.add(new Fragment("settings"));
        main.finishAndDestroy();
        main.onDestroy(clean);
        main = null;
        System.gc();
        System.out.println("ready");
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        System.out.println(current.hashCode() + shown.size() + mainQueue.hashCode());
    }
}
