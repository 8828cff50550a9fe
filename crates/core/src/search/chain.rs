//! Chains of shared links: a node's path from the root as `Arc` links, each
//! pointing to its parent's, so that siblings share their common prefix
//! instead of copying it.
//!
//! Dropping such a chain the derived way recurses once per link: a search
//! a hundred thousand levels deep (a knapsack of 100,000 items) overflows
//! the thread's stack when its open nodes are dropped — at the end of a
//! run stopped early, or when a piece is given away. [`unlink`] drops the
//! links one after the other instead, in a loop, and stops at the first
//! link that another chain still holds (that chain drops the rest later).
//!
//! ```
//! use std::sync::Arc;
//! use treelb::search::chain::unlink;
//!
//! struct Link {
//!     prev: Option<Arc<Link>>,
//! }
//! impl Drop for Link {
//!     fn drop(&mut self) {
//!         unlink(self.prev.take(), |l| l.prev.take());
//!     }
//! }
//! // A million links, dropped without a million stack frames.
//! let mut last = None;
//! for _ in 0..1_000_000 {
//!     last = Some(Arc::new(Link { prev: last }));
//! }
//! drop(last);
//! ```

use std::sync::Arc;

/// Drops the chain that starts at `first` iteratively: while this is the
/// last holder of a link, takes the link's parent out of it (`prev`) before
/// the link is dropped, so that no drop recurses into the next. A link's
/// own `Drop` calls it with its parent.
pub fn unlink<T>(first: Option<Arc<T>>, mut prev: impl FnMut(&mut T) -> Option<Arc<T>>) {
    let mut next = first;
    while let Some(link) = next {
        next = match Arc::try_unwrap(link) {
            Ok(mut last_holder) => prev(&mut last_holder),
            // Shared with another chain, which drops it in turn.
            Err(_) => None,
        };
    }
}
