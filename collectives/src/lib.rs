//! collectives (to be written)
