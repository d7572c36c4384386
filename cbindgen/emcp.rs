//! cbindgen input of `include/emcp.h`: no items of its own (the group
//! headers it includes hold them). See cbindgen/README.md.
