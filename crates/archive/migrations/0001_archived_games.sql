-- Finished games, one row each, kept for good. The body is the game's
-- record as the server wrote it (opaque here); the other columns are what
-- reads filter and order on. Text that orders pages uses the "C"
-- collation: bytes order, the order of the file and memory archives.
CREATE TABLE archived_games (
    id text COLLATE "C" PRIMARY KEY,
    player text COLLATE "C",
    player_name text,
    leaderboard text COLLATE "C",
    match_id text COLLATE "C",
    status text COLLATE "C" NOT NULL,
    rated boolean NOT NULL,
    created_ms bigint NOT NULL CHECK (created_ms >= 0),
    finished_ms bigint NOT NULL CHECK (finished_ms >= 0),
    body bytea NOT NULL
);

-- Every read is newest first by (finished_ms, id): a day's games, and
-- retention's oldest first read backwards.
CREATE INDEX archived_games_by_time
    ON archived_games (finished_ms DESC, id DESC);

-- A player's games, a leaderboard's and a match's; partial, as most games
-- have no leaderboard or match.
CREATE INDEX archived_games_by_player
    ON archived_games (player, finished_ms DESC, id DESC)
    WHERE player IS NOT NULL;

CREATE INDEX archived_games_by_leaderboard
    ON archived_games (leaderboard, finished_ms DESC, id DESC)
    WHERE leaderboard IS NOT NULL;

CREATE INDEX archived_games_by_match
    ON archived_games (match_id, finished_ms DESC, id DESC)
    WHERE match_id IS NOT NULL;
