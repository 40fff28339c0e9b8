//! Carries into this process's streams the changes that other processes
//! sharing the store write (replicas on one Redis): the store tells of
//! each write, and a game with readers here that were not sent it is
//! read again and sent. A new reader of a game is taken here, so that
//! the first one starts the following.

use super::service::Games;
use super::streams::Reader;
use linkpath_api::ApiError;
use linkpath_api::games::{GameView, stored};
use linkpath_store::Feed;
use std::sync::{Arc, Weak};
use tokio::sync::broadcast;

/// A new reader of game `id`, within the streams' bounds; the streams
/// follow the store's changes from the first reader on.
pub(crate) fn watch(games: &Arc<Games>, id: &str) -> Result<Reader, ApiError> {
    follow_store(games);
    games.streams.clone().subscribe(id)
}

/// Carries into this process's streams the changes that other processes
/// sharing the store (replicas on one Redis) write: started by the first
/// stream, for a store that tells of them; it ends with the store.
fn follow_store(games: &Arc<Games>) {
    games.following.call_once(|| {
        if let Some(feed) = games.records.store.changes() {
            tokio::spawn(follow(Arc::downgrade(games), feed));
        }
    });
}

/// Sends each change heard that this process's readers of the game were
/// not sent (the changes made here were), read from the store; after the
/// feed resumed, or fell behind, every game with readers is read again.
/// A reader skips a version it has, so none is sent twice.
async fn follow(games: Weak<Games>, mut feed: broadcast::Receiver<Feed>) {
    loop {
        let heard = feed.recv().await;
        let Some(games) = games.upgrade() else {
            return;
        };
        match heard {
            Ok(Feed::Written { id, version }) => {
                if games.streams.behind(&id, version) {
                    send_stored(&games, &id).await;
                }
            }
            // A match's write: the match streams read it, not the games'.
            Ok(Feed::Match { .. }) => {}
            Ok(Feed::Resumed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                for id in games.streams.watched() {
                    send_stored(&games, &id).await;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Sends game `id`, as stored now, to its readers here. A game that is
/// gone, or a store that fails, sends nothing: the readers keep what they
/// have, and the failure is logged where the read failed.
async fn send_stored(games: &Games, id: &str) {
    let now = games.now();
    if let Ok((stored::Loaded { game, .. }, expires)) = games.records.load(id, now).await {
        games
            .streams
            .publish(&GameView::new(&game, now, expires), game.due(u64::MAX));
    }
}
