//! The wasm binary Trunk builds: it only starts the app.

fn main() {
    swaplab_web::start();
}
