//! smpi-sweep: runs a program under smpirun over a grid of machines and
//! settings (see the `smpi-sweep` crate).

fn main() {
    smpi_sweep::main();
}
