//! How a game's columns are laid out in the file's `games` table (its id
//! is the key; its record is apart, in `bodies`, so that erasing a name
//! rewrites a few bytes, not the record):
//!
//! `flags | created_ms | finished_ms | status | [player] | [player_name]
//! | [leaderboard] | [match_id]`
//!
//! `flags` is a byte: bit 0 `rated`, bits 1 to 4 whether the player,
//! the name, the leaderboard and the match follow. Times are u64, and
//! each text a u16 length then its UTF-8 bytes, little-endian. Decoding
//! checks every length and byte: a row that does not decode is
//! [`ArchiveError::Corrupted`], never a panic.

use crate::ArchiveError;

/// A game's columns, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Row {
    pub player: Option<String>,
    pub player_name: Option<String>,
    pub leaderboard: Option<String>,
    pub match_id: Option<String>,
    pub status: String,
    pub rated: bool,
    pub created_ms: u64,
    pub finished_ms: u64,
}

const RATED: u8 = 1;
/// The bit of each optional text, in the order they follow.
const OPTIONAL: [u8; 4] = [1 << 1, 1 << 2, 1 << 3, 1 << 4];

impl Row {
    fn optional(&self) -> [&Option<String>; 4] {
        [
            &self.player,
            &self.player_name,
            &self.leaderboard,
            &self.match_id,
        ]
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut flags = if self.rated { RATED } else { 0 };
        for (bit, text) in OPTIONAL.iter().zip(self.optional()) {
            if text.is_some() {
                flags |= bit;
            }
        }
        let mut bytes = Vec::with_capacity(64);
        bytes.push(flags);
        bytes.extend_from_slice(&self.created_ms.to_le_bytes());
        bytes.extend_from_slice(&self.finished_ms.to_le_bytes());
        put_text(&mut bytes, &self.status);
        for text in self.optional().into_iter().flatten() {
            put_text(&mut bytes, text);
        }
        bytes
    }

    pub(super) fn decode(id: &str, bytes: &[u8]) -> Result<Row, ArchiveError> {
        let corrupted = |what: &str| {
            ArchiveError::Corrupted(format!(
                "the row of game `{id}` is cut short or bad: {what}"
            ))
        };
        let mut reader = Reader { bytes };
        let flags = reader.take(1).ok_or_else(|| corrupted("no flags"))?[0];
        if flags & !(RATED | OPTIONAL.iter().fold(0, |all, bit| all | bit)) != 0 {
            return Err(corrupted("unknown flags"));
        }
        let created_ms = reader.u64().ok_or_else(|| corrupted("created_ms"))?;
        let finished_ms = reader.u64().ok_or_else(|| corrupted("finished_ms"))?;
        let status = reader.text().ok_or_else(|| corrupted("status"))?;
        let mut optional = [None, None, None, None];
        for (bit, text) in OPTIONAL.iter().zip(&mut optional) {
            if flags & bit != 0 {
                *text = Some(reader.text().ok_or_else(|| corrupted("a text"))?);
            }
        }
        let [player, player_name, leaderboard, match_id] = optional;
        if !reader.bytes.is_empty() {
            return Err(corrupted("bytes past its end"));
        }
        Ok(Row {
            player,
            player_name,
            leaderboard,
            match_id,
            status,
            rated: flags & RATED != 0,
            created_ms,
            finished_ms,
        })
    }
}

fn put_text(bytes: &mut Vec<u8>, text: &str) {
    // Texts are checked to be at most `MAX_TEXT` (256) bytes before they
    // get here.
    let len = u16::try_from(text.len()).unwrap_or(u16::MAX);
    bytes.extend_from_slice(&len.to_le_bytes());
    bytes.extend_from_slice(&text.as_bytes()[..usize::from(len)]);
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn text(&mut self) -> Option<String> {
        let len = u16::from_le_bytes(self.take(2)?.try_into().ok()?);
        String::from_utf8(self.take(usize::from(len))?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row {
            player: Some("p1".to_owned()),
            player_name: None,
            leaderboard: Some("daily".to_owned()),
            match_id: None,
            status: "won".to_owned(),
            rated: true,
            created_ms: 1,
            finished_ms: 258,
        }
    }

    #[test]
    fn rows_decode_as_they_were_encoded() {
        let bytes = row().encode();
        assert_eq!(
            bytes,
            [
                &[0b0_1011][..],
                &[1, 0, 0, 0, 0, 0, 0, 0],
                &[2, 1, 0, 0, 0, 0, 0, 0],
                &[3, 0],
                b"won",
                &[2, 0],
                b"p1",
                &[5, 0],
                b"daily",
            ]
            .concat()
        );
        assert_eq!(Row::decode("g", &bytes), Ok(row()));
        let bare = Row {
            player: None,
            leaderboard: None,
            rated: false,
            ..row()
        };
        assert_eq!(Row::decode("g", &bare.encode()), Ok(bare));
    }

    #[test]
    fn every_cut_of_a_row_is_an_error() {
        let bytes = row().encode();
        for end in 0..bytes.len() {
            assert!(
                matches!(
                    Row::decode("g", &bytes[..end]),
                    Err(ArchiveError::Corrupted(_))
                ),
                "{end}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Row::decode("g", &longer),
            Err(ArchiveError::Corrupted(
                "the row of game `g` is cut short or bad: bytes past its end".to_owned()
            ))
        );
        let mut flagged = bytes;
        flagged[0] |= 0x80;
        assert!(Row::decode("g", &flagged).is_err());
    }
}
