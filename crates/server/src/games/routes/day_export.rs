//! `GET /v1/days/{date}/games/export`: the archived games finished on a
//! UTC day as NDJSON, one game a line with its replay and result, newest
//! first, streamed as every export is (`archive/export.rs`): 20 games a
//! second to anyone, 30 to a signed-in player; one export a caller at a
//! time. `since` and `until` narrow within the day. They are other
//! players' games too, so where games are private the export is refused.

use crate::archive::Archives;
use crate::archive::export::{pace, private_games, stream};
use crate::error::HttpError;
use crate::path::PathParam;
use crate::players::{Caller, Players};
use axum::extract::{RawQuery, State};
use axum::response::Response;
use linkpath_archive::Filter;
use std::sync::Arc;

/// A day's archived games, newest first, as NDJSON.
#[utoipa::path(get, path = "/v1/days/{date}/games/export", operation_id = "exportDayGames", tag = "games",
    params(
        // The pattern of `/v1/daily/{date}`: a day the calendar has, from
        // 1970-01-01 to 9999-12-31, as the archive's `Day` reads it.
        ("date" = String, Path, description = "The UTC day, `YYYY-MM-DD`, from 1970-01-01 to 9999-12-31",
            pattern = r"^(?:(?:19[7-9][0-9]|[2-9][0-9]{3})-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:19(?:7[26]|8[048]|9[26])|[2-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)-02-29)$"),
        ("since" = Option<String>, Query, format = DateTime, description = "Only games finished at or after this time (RFC 3339, any offset); the day's start when earlier"),
        ("until" = Option<String>, Query, format = DateTime, description = "Only games finished before this time (RFC 3339, any offset); the day's end when later"),
        ("max" = Option<u64>, Query, description = "The most games streamed", minimum = 1, maximum = 9223372036854775807_u64),
        ("status" = Option<String>, Query, description = "Only games that ended so: `won`, `out_of_time`, `resigned` or `race_over`"),
        ("rated" = Option<bool>, Query, description = "Only the rated games, or only the others"),
        ("leaderboard" = Option<String>, Query, description = "Only games on this leaderboard", pattern = r"^[0-9a-f]{32}$"),
        ("match" = Option<String>, Query, description = "Only the race of this match", pattern = r"^[0-9a-f]{32}$"),
        ("player" = Option<String>, Query, description = "Only this player's games, by id", pattern = r"^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "One archived game a line, newest first (none for a day with none), paced at 20 games a second, 30 to a signed-in player; a stream cut short means the archive failed midway", body = linkpath_api::games::ExportedGame, content_type = "application/x-ndjson"),
        (status = 403, description = "Games are private here, and a day's are other players' too: export your own from `/v1/players/me/games/export`", body = linkpath_api::ErrorBody),
        (status = 422, description = "A date or a query parameter that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 429, description = "An export of the caller's is streaming already", body = linkpath_api::ErrorBody),
        (status = 503, description = "The archive is unavailable (`Retry-After`), or as many exports stream as run at once", body = linkpath_api::ErrorBody)))]
pub(crate) async fn export(
    State(archives): State<Arc<Archives>>,
    State(players): State<Arc<Players>>,
    PathParam(date): PathParam<String>,
    RawQuery(query): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    let day = linkpath_api::games::read_export_day(&date)?;
    if players.private_games {
        let (start, end) = (
            linkpath_api::games::rfc3339(day.start_ms()),
            linkpath_api::games::rfc3339(day.end_ms()),
        );
        return Err(private_games("a day's", &format!("?since={start}&until={end}")).into());
    }
    let filter = linkpath_api::games::read_export_query(
        Filter::default(),
        &linkpath_api::games::DAY_EXPORT,
        query.as_deref(),
    )?;
    let (who, rate) = pace(&caller, None);
    // The day bounds the times the query asks, never widened by them.
    Ok(stream(&archives, filter.on(day), who, rate).await?)
}
