//! fluidnet (to be written)
