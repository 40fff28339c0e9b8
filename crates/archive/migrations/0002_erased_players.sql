-- The players erased: a game of theirs archived after the erasure (the
-- archive lags the live store) comes in without its name, as the games
-- archived before it lost theirs. The id alone, which the games keep.
CREATE TABLE erased_players (
    player text COLLATE "C" PRIMARY KEY
);
