//! A cursor over judge input that reads whitespace-separated numbers or
//! whole lines, and knows the line it is on for error messages.

use super::JudgeError;
use std::cell::Cell;

pub(super) struct Input<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Line numbers are counted only when asked for (the reading loops stay
    /// tight): `counted.1` is the 1-based line of byte `counted.0`.
    counted: Cell<(usize, usize)>,
}

/// The whitespace between tokens.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Input {
            bytes,
            pos: 0,
            counted: Cell::new((0, 1)),
        }
    }

    /// The 1-based line of the cursor.
    pub fn line(&self) -> usize {
        let (mut from, mut line) = self.counted.get();
        if from > self.pos {
            (from, line) = (0, 1);
        }
        line += self.bytes[from..self.pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted.set((self.pos, line));
        line
    }

    /// The line the next token starts on.
    pub fn next_token_line(&mut self) -> usize {
        self.skip_space();
        self.line()
    }

    pub fn error(&self, message: impl Into<String>) -> JudgeError {
        JudgeError {
            line: self.line(),
            message: message.into(),
        }
    }

    fn skip_space(&mut self) {
        while self.bytes.get(self.pos).is_some_and(|&b| is_space(b)) {
            self.pos += 1;
        }
    }

    /// Whether only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.bytes.len()
    }

    /// The next whitespace-separated token, for error messages.
    fn peek_token(&self) -> String {
        let rest = &self.bytes[self.pos..];
        let end = rest
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(rest.len())
            .min(20);
        String::from_utf8_lossy(&rest[..end]).into_owned()
    }

    /// The next number, which may be negative; `what` names it in errors.
    pub fn number(&mut self, what: &str) -> Result<i64, JudgeError> {
        self.skip_space();
        let start = self.pos;
        let negative = self.bytes.get(self.pos) == Some(&b'-');
        if negative {
            self.pos += 1;
        }
        let mut value: i64 = 0;
        let digits_start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| self.error(format!("{what} is too large")))?;
            self.pos += 1;
        }
        let ends_cleanly = self
            .bytes
            .get(self.pos)
            .is_none_or(|b| b.is_ascii_whitespace());
        if self.pos == digits_start || !ends_cleanly {
            self.pos = start;
            if self.pos >= self.bytes.len() {
                return Err(self.error(format!("unexpected end of input, expected {what}")));
            }
            return Err(self.error(format!("expected {what}, found `{}`", self.peek_token())));
        }
        Ok(if negative { -value } else { value })
    }

    /// The next number, which must lie in `range`.
    pub fn number_in(
        &mut self,
        what: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<i64, JudgeError> {
        let value = self.number(what)?;
        if range.contains(&value) {
            Ok(value)
        } else {
            Err(self.error(format!(
                "{what} is {value}, expected {} to {}",
                range.start(),
                range.end()
            )))
        }
    }

    /// The next number from 0 to `max`: the fast path for the million cells
    /// of a board, falling back to [`Input::number_in`] for anything it
    /// does not take at a glance (a sign, too many digits, trailing junk),
    /// so the errors stay the same.
    pub fn cell(&mut self, what: &str, max: u32) -> Result<u32, JudgeError> {
        // A local copy keeps the position in a register through the loops.
        let bytes = self.bytes;
        let mut pos = self.pos;
        while bytes.get(pos).is_some_and(|&b| is_space(b)) {
            pos += 1;
        }
        self.pos = pos;
        let mut value = 0u64;
        while let Some(&b) = bytes.get(pos) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value.saturating_mul(10).saturating_add(u64::from(digit));
            pos += 1;
        }
        let ends_cleanly = bytes.get(pos).is_none_or(u8::is_ascii_whitespace);
        if pos > self.pos && ends_cleanly && value <= u64::from(max) {
            self.pos = pos;
            return Ok(value as u32);
        }
        Ok(self.number_in(what, 0..=i64::from(max))? as u32)
    }

    /// The next non-negative number that fits a board side or count.
    pub fn size(&mut self, what: &str) -> Result<usize, JudgeError> {
        Ok(self.number_in(what, 0..=i64::from(i32::MAX / 4))? as usize)
    }

    /// The next whole line, without its line break. The rest of the current
    /// line must be blank: a board row starts on a line of its own.
    pub fn row(&mut self, what: &str) -> Result<&'a str, JudgeError> {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'\n' => break,
                b' ' | b'\t' | b'\r' => self.pos += 1,
                _ => {
                    return Err(self.error(format!(
                        "expected {what} on a line of its own, found `{}`",
                        self.peek_token()
                    )));
                }
            }
        }
        if self.pos >= self.bytes.len() {
            return Err(self.error(format!("unexpected end of input, expected {what}")));
        }
        self.pos += 1;
        // The line break ended the input's last line: there is no next line
        // to read a row from, not even an empty one.
        if self.pos >= self.bytes.len() {
            return Err(self.error(format!("unexpected end of input, expected {what}")));
        }
        let rest = &self.bytes[self.pos..];
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let mut text = &rest[..len];
        self.pos += len;
        if let [head @ .., b'\r'] = text {
            text = head;
        }
        std::str::from_utf8(text).map_err(|_| self.error(format!("{what} is not valid UTF-8")))
    }
}
