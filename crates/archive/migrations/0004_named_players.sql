-- The games that hold their player's name still, by player: a sweep
-- walks it in order to find the players whose names must go (those the
-- live store no longer has), a page at a time, an index-only scan.
CREATE INDEX archived_games_by_named_player
    ON archived_games (player)
    WHERE player_name IS NOT NULL;
