//! Validated model-folder I/O: the folder's files and their checks (`folder`), the weights
//! (`weights`, named by the tree in `walk`) and the training timeline (`timeline`). Every byte
//! read here may come from an untrusted folder the person dropped on the page, so each file is
//! checked before use.

pub mod folder;
pub mod memory;
pub mod packed_load;
pub mod stream;
pub mod timeline;
pub mod walk;
pub mod weights;
