//! A match as it is answered.

use super::record::{Match, MatchStatus, Placed};
use crate::games::rfc3339;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// A match as answered.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchView {
    /// 32 lowercase hex digits.
    #[schema(example = "0c9a5e3b7d1f4a6c8e2b0d9f7a5c3e1b")]
    pub id: String,
    /// Changes applied, from 0; the `ETag` of every answer.
    pub version: u64,
    pub status: MatchStatus,
    /// The id of the player who created it, who may start it.
    pub creator: String,
    /// The deal every seat plays, as `POST /v1/games` takes it.
    #[schema(value_type = crate::games::CreateGame)]
    pub game: Map<String, Value>,
    /// Seats in all, taken or not.
    pub seats: usize,
    /// Whether hints and undo are allowed.
    pub assists: bool,
    /// Who may join; anyone when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub invited: Option<Vec<String>>,
    /// The players seated, the creator first.
    pub players: Vec<SeatView>,
    /// RFC 3339, UTC: when the countdown ends and the race begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub starts_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub started_at: Option<String>,
    /// When the time limit ends the race.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ends_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub finished_at: Option<String>,
    /// Each seat's place, in the order of `players`, once it is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub result: Option<Vec<Placed>>,
    /// The match its players made next (`POST /v1/matches/{id}/rematch`),
    /// once one asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rematch: Option<String>,
    /// The finished match this one is the rematch of.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub previous: Option<String>,
    pub created_at: String,
    /// When the match is purged if nothing changes it first.
    pub expires_at: String,
}

/// A seated player.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatView {
    #[schema(example = "5f0c6a1e9b3d4c2a8e7f6b5a4c3d2e1f")]
    pub player: String,
    #[schema(example = "Ann")]
    pub name: String,
    /// The player's game of the race (`GET /v1/games/{id}`), once it began.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub game: Option<String>,
    /// When the player left the race under way.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub quit_at: Option<String>,
}

impl MatchView {
    /// `record`, expiring at `expires_at_ms`.
    pub fn new(record: &Match, expires_at_ms: u64) -> MatchView {
        let at = |ms: Option<u64>| ms.map(rfc3339);
        MatchView {
            id: record.id.clone(),
            version: record.version,
            status: record.status,
            creator: record.creator.clone(),
            game: record.settings.game.clone(),
            seats: record.settings.seats,
            assists: record.settings.assists,
            invited: record.settings.invited.clone(),
            players: record
                .seats
                .iter()
                .map(|seat| SeatView {
                    player: seat.player.clone(),
                    name: seat.name.clone(),
                    game: seat.game.clone(),
                    quit_at: at(seat.quit_at_ms),
                })
                .collect(),
            starts_at: at(record.starts_at_ms),
            started_at: at(record.started_at_ms),
            ends_at: at(record.ends_at_ms),
            finished_at: at(record.finished_at_ms),
            result: record.result.clone(),
            rematch: record.rematch.clone(),
            previous: record.previous.clone(),
            created_at: rfc3339(record.created_at_ms),
            expires_at: rfc3339(expires_at_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;
    use crate::matches::{Entrant, MatchRequest};
    use linkpath_engine::Stop;

    #[test]
    fn a_match_is_answered_with_its_players() {
        let body = br#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 2}"#;
        let request = MatchRequest::read(body, 3, &Limits::default(), &Stop::never()).unwrap();
        let ann = Entrant {
            id: "1".repeat(32),
            name: "Ann".into(),
        };
        let record = Match::create("f".repeat(32), request, &ann, 3_000, 0);
        let view = serde_json::to_value(MatchView::new(&record, 600_000)).unwrap();
        assert_eq!(
            view,
            serde_json::json!({
                "id": "f".repeat(32),
                "version": 0,
                "status": "open",
                "creator": "1".repeat(32),
                "game": {"width": 4, "height": 4, "types": 4, "seed": 3},
                "seats": 2,
                "assists": false,
                "players": [{"player": "1".repeat(32), "name": "Ann"}],
                "created_at": "1970-01-01T00:00:00.000Z",
                "expires_at": "1970-01-01T00:10:00.000Z",
            })
        );
    }
}
