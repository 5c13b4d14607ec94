//! platforms (to be written)
