package androidx.fragment.app;

/* Stand-in with AndroidX's name and the fields LeakCanary's fragment
 * inspectors read (tests/java/rules/README.md): mFragmentManager is null once
 * the fragment is removed. */
public class Fragment {
    Object mFragmentManager = new Object();
    String mTag;

    public Fragment(String tag) {
        mTag = tag;
    }

    public void remove() {
        mFragmentManager = null;
    }
}
