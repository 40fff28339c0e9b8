//! The cursors of paged lists (a leaderboard, a player's games): where a
//! page ends, opaque to clients so that how the server orders a list may
//! change. A cursor is its text's bytes in lowercase hex.

/// The longest cursor read, in characters.
const MAX_CHARS: usize = 256;

/// `text` as a cursor.
pub(crate) fn encode(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The text a cursor names; none for what is not a cursor.
pub(crate) fn decode(cursor: &str) -> Option<String> {
    if !cursor.len().is_multiple_of(2) || cursor.len() > MAX_CHARS {
        return None;
    }
    let bytes = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(cursor.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_read_back() {
        for text in ["", "00000000000000001234x", "1700000000000:ab12", "東"] {
            assert_eq!(decode(&encode(text)).as_deref(), Some(text));
        }
        for bad in ["0", "zz", "ff", &"00".repeat(129)] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
