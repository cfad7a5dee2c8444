package android.view;

import android.content.Context;

/* Stand-in with AOSP's name and the fields LeakCanary's VIEW inspector reads
 * (tests/java/rules/README.md). mAttachInfo is null once the view is detached. */
public class View {
    protected Context mContext;
    Object mAttachInfo;
    View mParent;
    int mID = -1;

    public View(Context context) {
        mContext = context;
        mAttachInfo = new Object();
    }

    public void detach() {
        mAttachInfo = null;
    }
}
