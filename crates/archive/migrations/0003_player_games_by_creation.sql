-- A player's games in the order they were created, as the live store
-- lists them: the list of a player's games reads the live store and the
-- archive in this one order and merges them.
CREATE INDEX archived_games_by_player_created
    ON archived_games (player, created_ms DESC, id DESC)
    WHERE player IS NOT NULL;
