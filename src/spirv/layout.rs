//! Location slot and XFB offset math shared by the passes.
