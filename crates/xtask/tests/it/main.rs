//! Tidy checks run with the native tests: rules about the code base itself that no
//! compiler enforces.

mod tidy;
