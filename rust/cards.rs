//! Cards of the three packs, their ids, canonical strings and parsing, and bit sets of cards.
//!
//! Each game's rules page numbers its cards its own way; a [`Pack`] records the rank and suit
//! tokens and whether ids run suit by suit or rank by rank. Card ids are `u8`; a set of cards
//! of a pack of at most 64 is a `u64` bit set.

use crate::{parse_err, Result};
use std::sync::OnceLock;

/// A pack: rank and suit tokens (canonical spellings first), aliases, and the id layout.
#[derive(Debug)]
pub struct Pack {
    pub name: &'static str,
    pub ranks: &'static [&'static str],
    pub suits: &'static [&'static str],
    /// Extra rank spellings accepted on input: (alias, rank index).
    pub rank_aliases: &'static [(&'static str, u8)],
    /// `true`: id = rank * suits + suit; `false`: id = suit * ranks + rank.
    pub rank_major: bool,
    /// Identical copies of every card (Cuajo: 4); deck lists repeat each id that often.
    pub copies: u8,
    /// The canonical names by their keys ([`name_key`]): built on first use.
    pub names: OnceLock<NameTable>,
}

/// The canonical names of a pack in a hash table without collisions: slot `hash(key)` holds
/// the key and its card id (key 0, no name's, where empty). Reading a saved deck of hundreds
/// of cards costs one multiplication per card. And per card id, its name as a saved deck
/// writes it, for [`Pack::write_names`].
#[derive(Debug)]
pub struct NameTable {
    multiplier: u64,
    slots: Vec<(u64, u8)>,
    /// `"name",` padded to 8 bytes, and its length.
    quoted: Vec<([u8; 8], usize)>,
}

impl NameTable {
    const BITS: u32 = 9;

    fn slot(multiplier: u64, key: u64) -> usize {
        (key.wrapping_mul(multiplier) >> (64 - Self::BITS)) as usize
    }

    /// The first odd multiplier (of a fixed sequence) that sends every key to its own slot.
    fn new(pack: &Pack) -> Self {
        let spelled: Vec<String> = (0..pack.kinds() as u8).map(|id| pack.name_of(id)).collect();
        let names: Vec<(u64, u8)> = (0..)
            .zip(&spelled)
            .filter_map(|(id, name)| Some((name_key(name.as_bytes())?, id)))
            .collect();
        let quoted = spelled
            .iter()
            .map(|name| {
                let mut bytes = [0; 8];
                let text = format!("\"{name}\",");
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                (bytes, text.len())
            })
            .collect();
        let mut multiplier = 0x9E37_79B9_7F4A_7C15u64;
        loop {
            let mut slots = vec![(0, 0); 1 << Self::BITS];
            let fits = names.iter().all(|&(key, id)| {
                let slot = &mut slots[Self::slot(multiplier, key)];
                // (A name given twice, never the case, would keep its last id.)
                let free = slot.0 == 0 || slot.0 == key;
                *slot = (key, id);
                free
            });
            if fits {
                return NameTable {
                    multiplier,
                    slots,
                    quoted,
                };
            }
            multiplier = multiplier.wrapping_add(0x6A09_E667_F3BC_C908);
        }
    }

    fn get(&self, key: u64) -> Option<u8> {
        let (k, id) = self.slots[Self::slot(self.multiplier, key)];
        (k == key).then_some(id)
    }
}

/// A name of one to four bytes as one number, its length included (every canonical card name
/// is that short; no key is 0).
fn name_key(name: &[u8]) -> Option<u64> {
    (1..=4).contains(&name.len()).then(|| {
        name.iter()
            .fold(name.len() as u64, |k, &b| k << 8 | u64::from(b))
    })
}

impl Pack {
    pub const fn kinds(&self) -> usize {
        self.ranks.len() * self.suits.len()
    }

    /// Cards in a full pack, counting copies.
    pub const fn size(&self) -> usize {
        self.kinds() * self.copies as usize
    }

    pub fn id(&self, rank: u8, suit: u8) -> u8 {
        if self.rank_major {
            rank * self.suits.len() as u8 + suit
        } else {
            suit * self.ranks.len() as u8 + rank
        }
    }

    pub fn rank(&self, id: u8) -> u8 {
        if self.rank_major {
            id / self.suits.len() as u8
        } else {
            id % self.ranks.len() as u8
        }
    }

    pub fn suit(&self, id: u8) -> u8 {
        if self.rank_major {
            id % self.suits.len() as u8
        } else {
            id / self.ranks.len() as u8
        }
    }

    /// The canonical string of card `id` (`#id` for an id outside the pack, which no state
    /// holds: naming a card must never fail, even in an error message).
    pub fn name_of(&self, id: u8) -> String {
        match (
            self.ranks.get(self.rank(id) as usize),
            self.suits.get(self.suit(id) as usize),
        ) {
            (Some(r), Some(s)) if (id as usize) < self.kinds() => {
                // Char by char: a call to copy two or three bytes costs more than the copy.
                let mut out = String::with_capacity(4);
                r.chars().chain(s.chars()).for_each(|c| out.push(c));
                out
            }
            _ => format!("#{id}"),
        }
    }

    fn table(&self) -> &NameTable {
        self.names.get_or_init(|| NameTable::new(self))
    }

    /// Appends the [`Pack::name_of`] of `cards` to `out` as JSON strings separated by commas
    /// (how saved states write their decks). `bytes` is scratch space.
    pub fn write_names(&self, cards: &[u8], bytes: &mut Vec<u8>, out: &mut String) {
        let quoted = &self.table().quoted;
        bytes.clear();
        for &c in cards {
            match quoted.get(c as usize) {
                // All 8 bytes, then the padding cut: a copy of fixed size is one store, a call
                // to copy a name's few bytes costs more than the copy.
                Some((name, len)) => {
                    bytes.extend_from_slice(name);
                    bytes.truncate(bytes.len() - 8 + len);
                }
                None => bytes.extend_from_slice(format!("\"{}\",", self.name_of(c)).as_bytes()),
            }
        }
        bytes.pop(); // the last comma
        out.push_str(std::str::from_utf8(bytes).expect("card names are ASCII"));
    }

    /// [`Pack::parse`], with a quick path for canonical strings (what states are saved with):
    /// one look in a table of the pack's names.
    pub fn parse_name(&self, text: &str) -> Result<u8> {
        name_key(text.as_bytes())
            .and_then(|key| self.table().get(key))
            .map_or_else(|| self.parse(text), Ok)
    }

    /// Parses a card string, case-insensitively: rank token then suit letter.
    pub fn parse(&self, text: &str) -> Result<u8> {
        let t = text.trim_ascii().to_ascii_uppercase();
        let bad = || {
            parse_err!(
                "{} is not a card of the {} pack (rank {} then suit {})",
                crate::error::quoted(text),
                self.name,
                self.ranks.join("/"),
                self.suits.join("/")
            )
        };
        if t.len() < 2 || !t.is_ascii() {
            return Err(bad());
        }
        let (r, s) = t.split_at(t.len() - 1);
        let suit = self.suits.iter().position(|&x| x == s).ok_or_else(bad)? as u8;
        let rank = match self.ranks.iter().position(|&x| x == r) {
            Some(i) => i as u8,
            None => self
                .rank_aliases
                .iter()
                .find(|(a, _)| *a == r)
                .map(|&(_, i)| i)
                .ok_or_else(bad)?,
        };
        Ok(self.id(rank, suit))
    }

    /// Parses a complete deck (top first): every card of the pack exactly `copies` times.
    pub fn parse_deck<S: AsRef<str>>(&self, cards: &[S]) -> Result<Vec<u8>> {
        let ids = cards
            .iter()
            .map(|c| {
                self.parse_name(c.as_ref())
                    .map_err(|e| crate::Error::Config(e.to_string()))
            })
            .collect::<Result<Vec<u8>>>()?;
        self.check_deck(&ids)?;
        Ok(ids)
    }

    /// A deck must hold every card of the pack exactly `copies` times.
    pub fn check_deck(&self, ids: &[u8]) -> Result<()> {
        if ids.len() != self.size() {
            return Err(crate::config_err!(
                "a deck of the {} pack has {} cards, got {}",
                self.name,
                self.size(),
                ids.len()
            ));
        }
        let mut count = vec![0u8; self.kinds()];
        for &id in ids {
            let c = count
                .get_mut(id as usize)
                .ok_or_else(|| crate::config_err!("card id {id} out of range"))?;
            *c += 1;
            if *c > self.copies {
                return Err(crate::config_err!(
                    "the deck is not a permutation of the {} pack: {} appears too often",
                    self.name,
                    self.name_of(id)
                ));
            }
        }
        Ok(())
    }

    /// The pack in ascending id order (each id `copies` times).
    pub fn sorted(&self) -> Vec<u8> {
        (0..self.kinds() as u8)
            .flat_map(|id| std::iter::repeat_n(id, self.copies as usize))
            .collect()
    }
}

/// French 52 for Spoil Five: suits C D H S, ranks 2 … A, id = 13·suit + rank.
pub static FRENCH_SPOIL_FIVE: Pack = Pack {
    name: "French 52",
    ranks: &[
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ],
    suits: &["C", "D", "H", "S"],
    rank_aliases: &[("T", 8)],
    rank_major: false,
    copies: 1,
    names: OnceLock::new(),
};

/// French 52 for Cicera: suits S H D C, ranks A … K, id = 13·suit + rank.
pub static FRENCH_CICERA: Pack = Pack {
    name: "French 52",
    ranks: &[
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ],
    suits: &["S", "H", "D", "C"],
    rank_aliases: &[("T", 9)],
    rank_major: false,
    copies: 1,
    names: OnceLock::new(),
};

/// Spanish 40 for Cau Robat: ranks 1 … 7, 10, 11, 12, suits O C E B, id = 4·rank + suit.
pub static SPANISH_40: Pack = Pack {
    name: "Spanish 40",
    ranks: &["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"],
    suits: &["O", "C", "E", "B"],
    rank_aliases: &[],
    rank_major: true,
    copies: 1,
    names: OnceLock::new(),
};

/// Cuajo's 112: 28 kinds (ranks A 3 4 5 J H K, suits O C E B, id = 7·suit + rank), four copies.
pub static CUAJO_112: Pack = Pack {
    name: "Cuajo 112",
    ranks: &["A", "3", "4", "5", "J", "H", "K"],
    suits: &["O", "C", "E", "B"],
    rank_aliases: &[("1", 0), ("10", 4), ("11", 5), ("12", 6)],
    rank_major: false,
    copies: 4,
    names: OnceLock::new(),
};

/// Iterates the ids of a bit set in ascending order.
pub fn ids(mut set: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let id = set.trailing_zeros() as u8;
            set &= set - 1;
            Some(id)
        }
    })
}

/// Writes bit `i` of `set` into `out[i]` (1.0 or 0.0) for every cell of `out` (at most 64):
/// eight cells at a time from a table. Observations use it rather than writing the ids of the
/// set bits, a loop whose end mispredicts and which cost most of their time.
pub fn write_bits(set: u64, out: &mut [f32]) {
    const BYTES: [[f32; 8]; 256] = {
        let mut t = [[0.0; 8]; 256];
        let mut x = 0;
        while x < 256 {
            let mut i = 0;
            while i < 8 {
                t[x][i] = ((x >> i) & 1) as f32;
                i += 1;
            }
            x += 1;
        }
        t
    };
    assert!(out.len() <= 64, "a bit set has 64 cells");
    let byte = |i: usize| BYTES[(set.checked_shr(8 * i as u32).unwrap_or(0) & 0xFF) as usize];
    let whole = out.len() / 8;
    let mut chunks = out.chunks_exact_mut(8);
    for (i, cells) in (&mut chunks).enumerate() {
        cells.copy_from_slice(&byte(i));
    }
    let rest = chunks.into_remainder();
    rest.copy_from_slice(&byte(whole)[..rest.len()]);
}

/// A number as the action and outcome names write it: decimal digits with no sign and no
/// leading zero (`"12"`, not `"+12"` or `"012"`, which Rust's `parse` takes).
pub fn decimal(text: &str) -> Option<usize> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

pub const fn bit(id: u8) -> u64 {
    1u64 << id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_numbers_are_plain() {
        assert_eq!(decimal("0"), Some(0));
        assert_eq!(decimal("12"), Some(12));
        for bad in [
            "",
            "+1",
            "-1",
            "01",
            "00",
            " 1",
            "1 ",
            "1e2",
            "99999999999999999999999",
        ] {
            assert_eq!(decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn write_bits_writes_every_cell() {
        let mut rng = crate::rng::Rng::new(7);
        for len in 0..=64 {
            for _ in 0..50 {
                let set = rng.next_u64() & (u64::MAX >> (64 - len.max(1)));
                let set = if len == 0 { 0 } else { set };
                let mut out = vec![7.0; len];
                write_bits(set, &mut out);
                let want: Vec<f32> = (0..len).map(|i| ((set >> i) & 1) as f32).collect();
                assert_eq!(out, want, "{set:#x}, {len} cells");
            }
        }
    }

    #[test]
    fn every_pack_round_trips_every_card() {
        for pack in [&FRENCH_SPOIL_FIVE, &FRENCH_CICERA, &SPANISH_40, &CUAJO_112] {
            for id in 0..pack.kinds() as u8 {
                let s = pack.name_of(id);
                assert_eq!(pack.parse(&s).unwrap(), id, "{s}");
                assert_eq!(pack.parse(&s.to_lowercase()).unwrap(), id, "{s}");
            }
        }
    }

    /// The quick path of `parse_name` gives what `parse` gives, for every name and for names
    /// whose key bytes coincide with a card's (a shorter name padded with a NUL byte).
    #[test]
    fn parse_name_is_parse() {
        for pack in [&FRENCH_SPOIL_FIVE, &FRENCH_CICERA, &SPANISH_40, &CUAJO_112] {
            let names: Vec<String> = (0..pack.kinds() as u8).map(|id| pack.name_of(id)).collect();
            let mut texts = names.clone();
            for n in &names {
                texts.extend([
                    n.to_lowercase(),
                    format!("\0{n}"),
                    n[..n.len() - 1].to_string(),
                ]);
            }
            texts.extend(["", "\0", "10", "ÅH", "AHH", "TH", " AS"].map(String::from));
            for t in &texts {
                assert_eq!(pack.parse_name(t).ok(), pack.parse(t).ok(), "{t:?}");
            }
        }
    }

    /// A saved deck's names, written at once, are the names one by one as JSON strings.
    #[test]
    fn write_names_writes_each_name_quoted() {
        for pack in [&FRENCH_SPOIL_FIVE, &FRENCH_CICERA, &SPANISH_40, &CUAJO_112] {
            let mut cards: Vec<u8> = (0..pack.kinds() as u8).rev().collect();
            cards.push(200); // no card: written as name_of writes it
            let mut bytes = Vec::new();
            for n in [0, 1, cards.len()] {
                let mut out = String::from("[");
                pack.write_names(&cards[..n], &mut bytes, &mut out);
                let names: Vec<String> = cards[..n]
                    .iter()
                    .map(|&c| format!("\"{}\"", pack.name_of(c)))
                    .collect();
                assert_eq!(out, format!("[{}", names.join(",")));
            }
        }
    }

    #[test]
    fn documented_ids() {
        assert_eq!(FRENCH_SPOIL_FIVE.parse("AH").unwrap(), 38);
        assert_eq!(FRENCH_SPOIL_FIVE.parse("5C").unwrap(), 3);
        assert_eq!(
            FRENCH_SPOIL_FIVE.parse("th").unwrap(),
            FRENCH_SPOIL_FIVE.parse("10H").unwrap()
        );
        assert_eq!(FRENCH_CICERA.parse("JH").unwrap(), 23);
        assert_eq!(FRENCH_CICERA.parse("KC").unwrap(), 51);
        assert_eq!(SPANISH_40.parse("12B").unwrap(), 39);
        assert_eq!(SPANISH_40.parse("1C").unwrap(), 1);
        assert_eq!(CUAJO_112.parse("KO").unwrap(), 6);
        assert_eq!(CUAJO_112.parse("3B").unwrap(), 22);
        assert_eq!(CUAJO_112.parse("12B").unwrap(), 27);
    }

    #[test]
    fn bad_cards_are_parse_errors() {
        for bad in ["", "A", "1H", "11S", "AX", "ÅH", "10", "  ", "AHH"] {
            assert!(
                matches!(FRENCH_SPOIL_FIVE.parse(bad), Err(crate::Error::Parse(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn decks_must_be_permutations() {
        let mut d = FRENCH_SPOIL_FIVE.sorted();
        assert!(FRENCH_SPOIL_FIVE.check_deck(&d).is_ok());
        d[0] = 1;
        assert!(FRENCH_SPOIL_FIVE.check_deck(&d).is_err());
        assert!(FRENCH_SPOIL_FIVE.check_deck(&d[1..]).is_err());
        assert_eq!(CUAJO_112.sorted().len(), 112);
    }
}
