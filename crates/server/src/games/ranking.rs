//! The day's deal and the leaderboards: `GET /v1/daily/{date}` deals as
//! `/v1/deal` does, on the solver pool; `GET /v1/leaderboards/{name}`
//! reads the store. A win is entered by the move that makes it, in the
//! same write (see `act`).

use super::{now_ms, unavailable};
use crate::AppState;
use crate::error::HttpError;
use crate::metrics;
use crate::path::PathParam;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use linkpath_api::Work;
use linkpath_api::games::{DailyDeal, Leaderboard};
use std::time::Instant;

/// The deal everyone gets on a day, for the settings asked.
#[utoipa::path(get, path = "/v1/daily/{date}", operation_id = "getDailyDeal", tag = "games",
    params(
        ("date" = String, Path, description = "The day, `YYYY-MM-DD`", pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
        ("width" = Option<u64>, Query, description = "Columns; 14 when absent", minimum = 1),
        ("height" = Option<u64>, Query, description = "Rows; 6 when absent", minimum = 1),
        ("types" = Option<u64>, Query, description = "Tile types; 21 when absent", minimum = 1),
        ("copies" = Option<u64>, Query, description = "Tiles of each type; 4 when absent", minimum = 1),
        ("difficulty" = Option<linkpath_api::game::DifficultyName>, Query, description = "`medium` when absent"),
        ("rules" = Option<linkpath_api::games::PresetName>, Query, description = "`shisen-sho` when absent; curling has no game"),
        ("gravity" = Option<linkpath_api::games::Gravity>, Query, description = "`none` when absent"),
        ("settle" = Option<bool>, Query, description = "Whether every line settles; false when absent")),
    responses(
        (status = 200, description = "The day's deal, the body that creates its game, and its leaderboard", body = DailyDeal),
        (status = 422, description = "A date or setting that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 504, description = "The deal took past the deadline", body = linkpath_api::ErrorBody)))]
pub(super) async fn daily(
    State(state): State<AppState>,
    PathParam(date): PathParam<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, HttpError> {
    let permit = state.solver_slot()?;
    let limits = state.games.request_limits.clone();
    let json = state
        .run_blocking(permit, Work::Deal, move |stop| {
            let deal = linkpath_api::games::daily(&date, query.as_deref(), &limits, stop)?;
            linkpath_api::encode(&deal)
        })
        .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// A board's best won games, best first.
#[utoipa::path(get, path = "/v1/leaderboards/{name}", operation_id = "getLeaderboard", tag = "games",
    params(
        ("name" = String, Path, description = "The board, as a game's or a daily deal's `leaderboard` names it", pattern = r"^[0-9a-f]{32}$"),
        ("limit" = Option<u32>, Query, description = "Entries answered, from 1 to the board size (100 by default); 10 when absent", minimum = 1, maximum = 1000)),
    responses(
        (status = 200, description = "The board's best entries; none for a board with no win yet, or expired", body = Leaderboard),
        (status = 422, description = "A name or limit that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store is unavailable", body = linkpath_api::ErrorBody)))]
pub(super) async fn leaderboard(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, HttpError> {
    let games = state.games.clone();
    let board = linkpath_api::games::read_board(&name)?;
    let limit = linkpath_api::games::read_limit(query.as_deref(), games.board_size)?;
    let started = Instant::now();
    let stored = games.store.leaderboard(board, limit, now_ms()).await;
    metrics::record_store("read", started);
    let answer = linkpath_api::games::leaderboard(board, &stored.map_err(unavailable)?)?;
    let json = linkpath_api::encode(&answer)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}
