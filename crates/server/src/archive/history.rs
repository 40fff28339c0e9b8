//! A player's archived games for the list of their games
//! (`GET /v1/players/{id}/games`): a page of the archive in the live
//! store's order (newest created first, the archive's index by player and
//! creation), which the route merges with the live store's page.

use super::{Archives, unavailable};
use linkpath_api::ApiError;
use linkpath_api::games::{GameSummary, GamesQuery, SourcePage};
use linkpath_archive::{Cursor, Filter, Order};

impl Archives {
    /// The archived games of `player` that `query` asks for, at most
    /// `query.limit`, newest created first; nothing where no archive is
    /// set, or for a status no finished game has. An archived game whose
    /// record does not read is left out, and logged.
    pub(crate) async fn player_games(
        &self,
        player: &str,
        query: &GamesQuery,
    ) -> Result<SourcePage, ApiError> {
        if self.spec().is_none() || query.status.is_some_and(|status| !status.finished()) {
            return Ok(SourcePage::default());
        }
        let archive = self.archive().await.map_err(unavailable)?;
        let filter = Filter {
            player: Some(player.to_owned()),
            leaderboard: query.leaderboard.clone(),
            status: query.status.map(|status| status.name().to_owned()),
            since_ms: query.since_ms,
            until_ms: query.until_ms,
            order: Order::Created,
            ..Filter::default()
        };
        let after = (query.after.clone()).map(|(at_ms, id)| Cursor { at_ms, id });
        let games = archive
            .page(&filter, after.as_ref(), query.limit)
            .await
            .map_err(unavailable)?;
        let read_to = (games.len() == query.limit)
            .then(|| games.last().map(|game| (game.created_ms, game.id.clone())))
            .flatten();
        let mut page = SourcePage {
            games: Vec::with_capacity(games.len()),
            read_to,
        };
        for game in &games {
            match GameSummary::archived(game) {
                Ok(summary) => page
                    .games
                    .push(((game.created_ms, game.id.clone()), summary)),
                Err(e) => tracing::error!(
                    game = crate::games::errors::short(&game.id),
                    error = %e,
                    "an archived game does not read: left out of its player's list"
                ),
            }
        }
        Ok(page)
    }
}
