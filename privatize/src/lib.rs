//! privatize (to be written)
