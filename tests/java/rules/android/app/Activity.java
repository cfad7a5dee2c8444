package android.app;

import android.content.Context;
import android.view.Window;

/* Stand-in with AOSP's name and the fields LeakCanary's ACTIVITY inspector
 * reads (tests/java/rules/README.md). */
public class Activity extends Context {
    boolean mDestroyed;
    boolean mFinished;
    Window mWindow = new Window();

    public void finishAndDestroy() {
        mFinished = true;
        mDestroyed = true;
        mWindow.destroy();
    }
}
