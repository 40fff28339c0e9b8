//! `GET /v1/daily/{date}`: the day's deal, dealt as `/v1/deal` deals, on
//! the solver pool; a win of its game is entered on its leaderboard.
//!
//! A day's deal for given settings never changes (its seed is the date),
//! so it is sent to be kept: `Cache-Control: public, max-age=31536000,
//! immutable`, with an `ETag` that `If-None-Match` is answered `304` by.
//! The tag is a hash of the answer's bytes and weak, as the answer may be
//! sent compressed; a release that dealt otherwise would change it.

use crate::cached::{none_match, weak_etag};
use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use linkpath_api::games::DailyDeal;
use std::sync::Arc;

/// The deal everyone gets on a day, for the settings asked.
#[utoipa::path(get, path = "/v1/daily/{date}", operation_id = "getDailyDeal", tag = "games",
    params(
        // A day the calendar has, from 1970-01-01 to 9999-12-31, as the
        // route reads it: months of 31, 30 and 28 days, then the 29th of
        // February of the leap years (1972 to 1996, then a year divisible
        // by 4 but not 100, or by 400).
        ("date" = String, Path, description = "The day, `YYYY-MM-DD`, from 1970-01-01 to 9999-12-31",
            pattern = r"^(?:(?:19[7-9][0-9]|[2-9][0-9]{3})-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:19(?:7[26]|8[048]|9[26])|[2-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)-02-29)$"),
        ("width" = Option<u64>, Query, description = "Columns; 14 when absent", minimum = 1),
        ("height" = Option<u64>, Query, description = "Rows; 6 when absent", minimum = 1),
        ("types" = Option<u64>, Query, description = "Tile types; 21 when absent", minimum = 1),
        ("copies" = Option<u64>, Query, description = "Tiles of each type, an even number; 4 when absent", minimum = 2, multiple_of = 2),
        ("difficulty" = Option<linkpath_api::mechanics::DifficultyName>, Query, description = "`medium` when absent"),
        ("rules" = Option<linkpath_api::games::PresetName>, Query, description = "`shisen-sho` when absent; curling has no game"),
        ("gravity" = Option<linkpath_api::games::Gravity>, Query, description = "`none` when absent"),
        ("settle" = Option<bool>, Query, description = "Whether every line settles; false when absent"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the deal held; 304 when it names this one")),
    responses(
        (status = 200, description = "The day's deal, the body that creates its game, and its leaderboard; kept for good (`Cache-Control: immutable`), with an `ETag`", body = DailyDeal),
        (status = 304, description = "Not modified: `If-None-Match` named the deal's `ETag`"),
        (status = 413, description = "A board over the server's limits (`LINKPATH_MAX_SIDE`, `LINKPATH_MAX_CELLS`), named in `field`", body = linkpath_api::ErrorBody),
        (status = 422, description = "A date or setting that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 504, description = "The deal took past the deadline", body = linkpath_api::ErrorBody)))]
pub(crate) async fn daily(
    State(games): State<Arc<Games>>,
    PathParam(date): PathParam<String>,
    RawQuery(query): RawQuery,
    request: HeaderMap,
) -> Result<Response, HttpError> {
    let deal = games.daily(date, query).await?;
    let json = linkpath_api::encode(&deal)?;
    let caching = [
        (header::ETAG, weak_etag(&json)),
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        ),
    ];
    if none_match(&request, &caching[0].1) {
        return Ok((StatusCode::NOT_MODIFIED, caching).into_response());
    }
    let mut response = super::plain_json(json);
    response.headers_mut().extend(caching);
    Ok(response)
}
