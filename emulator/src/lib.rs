//! emulator (to be written)
