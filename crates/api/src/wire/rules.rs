//! The rules on the wire: a preset's name, or an object whose fields
//! override a preset, with its matching groups; read into the engine's
//! `Rules` and `Groups`. A held game keeps them read ([`HeldRules`]) with
//! the form they were sent in, which its answers echo.

use crate::board::{BoardEncoding, Tile};
use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use linkpath_engine::{EMPTY, Groups, GroupsError, Match, Movement, Preset, Rules, tile_of_char};
use serde::de::SeqAccess;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};

/// A named rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
#[schema(as = Preset)]
pub enum PresetName {
    /// Any turns, paths may leave the board, any two tiles match.
    #[default]
    Mahjong,
    /// At most two turns, through the ring around the board, same types.
    ShisenSho,
    /// At most two turns, inside the board, same types.
    Lianliankan,
    /// Curling 2.0: the stone slides until it hits a block, at most 10
    /// throws.
    Curling,
}

impl From<PresetName> for Preset {
    fn from(name: PresetName) -> Preset {
        match name {
            PresetName::Mahjong => Preset::Mahjong,
            PresetName::ShisenSho => Preset::ShisenSho,
            PresetName::Lianliankan => Preset::Lianliankan,
            PresetName::Curling => Preset::Curling,
        }
    }
}

/// How a path moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Movement)]
pub(crate) enum MovementName {
    /// Straight segments through empty cells, turning anywhere.
    Line,
    /// A stone slides until it hits a block, which breaks.
    Slide,
}

/// Which tiles may be paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Match)]
pub(crate) enum MatchName {
    /// Any two tiles.
    Any,
    /// Tiles of the same type.
    Same,
}

/// `match`: a name, or groups of tile types that match one another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WireMatch {
    Name(MatchName),
    Groups(MatchGroups),
}

/// Matching by group ("Chinese style", as in KShisen): two tiles match
/// when they are of one type or of one group.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatchGroups {
    /// Sets of tile types that match one another; a type in no group
    /// matches only itself. Each group is non-empty, and a type is in at
    /// most one group. Groups may name types the board does not have.
    #[schema(value_type = Vec<MatchGroup>)]
    pub groups: GroupList,
}

/// One group in the contract: the tile characters of text rows as one
/// string (`"1234"`), or the tile numbers of number rows (`[1, 2, 3, 4]`).
/// Read into a [`GroupList`].
pub(crate) struct MatchGroup;

/// The groups of `match` as written, held flat: every group's types one
/// after another and where each group ends, rather than a vector a group
/// (a million groups of one type, 9 MB of JSON, took 23 bytes of memory a
/// byte that way). Checked against the form of the board's rows by
/// [`WireRules::groups`], as the board may come after the rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupList {
    /// Where each group ends in `text` or in `numbers`, as its form is.
    ends: Vec<u32>,
    /// The characters of the text groups.
    text: String,
    /// The numbers of the number groups, those that are tile types.
    numbers: Vec<u32>,
    /// The first group written as a string, and as an array: a group not
    /// in the form of the board's rows is refused by its index.
    first_text: Option<usize>,
    first_numbers: Option<usize>,
    /// A bit a group, set for one written as an array, so that the list is
    /// written back in the forms it was read in.
    number_groups: Vec<u64>,
    /// The first number that is not a tile type, as written, and its group.
    not_a_tile: Option<(usize, String)>,
}

impl GroupList {
    /// How many groups are listed.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Where group `i` lies in its form's list.
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        start..self.ends[i] as usize
    }

    /// Whether group `i` was written as an array of numbers.
    fn is_numbers(&self, i: usize) -> bool {
        self.number_groups
            .get(i / 64)
            .is_some_and(|bits| bits >> (i % 64) & 1 == 1)
    }

    /// Closes the group just read, which ends at `end` of its list.
    fn close<E: de::Error>(&mut self, end: usize) -> Result<(), E> {
        let end = u32::try_from(end)
            .map_err(|_| E::custom("the groups list more than 4294967295 tile types"))?;
        self.ends.push(end);
        Ok(())
    }
}

impl<'de> Deserialize<'de> for GroupList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = GroupList;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GroupList, A::Error> {
                let mut list = GroupList::default();
                while seq.next_element_seed(GroupSeed(&mut list))?.is_some() {}
                Ok(list)
            }
        }
        deserializer.deserialize_seq(List)
    }
}

/// Reads one group onto the end of a [`GroupList`].
struct GroupSeed<'a>(&'a mut GroupList);

impl<'de> de::DeserializeSeed<'de> for GroupSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for GroupSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string of tile characters or an array of tile numbers")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        let list = self.0;
        list.first_text.get_or_insert(list.ends.len());
        list.text.push_str(text);
        list.close(list.text.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let list = self.0;
        let group = list.ends.len();
        list.first_numbers.get_or_insert(group);
        if list.number_groups.len() <= group / 64 {
            list.number_groups.push(0);
        }
        list.number_groups[group / 64] |= 1 << (group % 64);
        while let Some(n) = seq.next_element::<serde_json::Number>()? {
            match n.as_u64().map(u32::try_from) {
                Some(Ok(tile)) if tile != EMPTY => list.numbers.push(tile),
                _ => {
                    list.not_a_tile.get_or_insert((group, n.to_string()));
                }
            }
        }
        list.close(list.numbers.len())
    }
}

impl Serialize for GroupList {
    /// Each group in the form it was read in: a string, or an array of
    /// numbers. A number that is not a tile is not kept, so it is not
    /// written back; every route refuses such a list before a game holds
    /// it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        // Where the next group of each form starts in its list.
        let (mut text_at, mut numbers_at) = (0, 0);
        for (i, &end) in self.ends.iter().enumerate() {
            let end = end as usize;
            if self.is_numbers(i) {
                seq.serialize_element(&self.numbers[numbers_at..end])?;
                numbers_at = end;
            } else {
                seq.serialize_element(&self.text[text_at..end])?;
                text_at = end;
            }
        }
        seq.end()
    }
}

impl utoipa::PartialSchema for MatchGroup {
    fn schema() -> RefOr<Schema> {
        let text = ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .title(Some("TextGroup"))
            .description(Some(
                "Tile characters of text rows, each a type; not space or `.` (empty cells), nor a control character.",
            ))
            .min_length(Some(1));
        let numbers = ArrayBuilder::new()
            .title(Some("NumberGroup"))
            .description(Some("Tile numbers of number rows, each a type."))
            .items(
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::Integer))
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(1))
                    .maximum(Some(u32::MAX)),
            )
            .min_items(Some(1));
        utoipa::openapi::schema::OneOfBuilder::new()
            .description(Some(
                "One group of types that match one another: a string for text rows, numbers for number rows.",
            ))
            .item(text)
            .item(numbers)
            .into()
    }
}

impl ToSchema for MatchGroup {}

impl utoipa::PartialSchema for WireMatch {
    fn schema() -> RefOr<Schema> {
        name_or_object::<MatchName, MatchGroups>(
            "Which tiles may be paired: `any`, `same` (type), or `{\"groups\": [...]}` (type or group).",
        )
    }
}

impl ToSchema for WireMatch {
    fn name() -> std::borrow::Cow<'static, str> {
        "Matching".into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        name_and_object_schemas::<MatchName, MatchGroups>(schemas);
    }
}

/// The schema of a field that is either a name (the enum `N`) or an
/// object `O`, each by reference.
fn name_or_object<N: ToSchema, O: ToSchema>(description: &str) -> RefOr<Schema> {
    utoipa::openapi::schema::OneOfBuilder::new()
        .description(Some(description))
        .item(utoipa::openapi::Ref::from_schema_name(N::name()))
        .item(utoipa::openapi::Ref::from_schema_name(O::name()))
        .into()
}

/// Registers the two schemas [`name_or_object`] refers to, and those `O`
/// refers to.
fn name_and_object_schemas<N: ToSchema, O: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    schemas.push((N::name().into(), N::schema()));
    schemas.push((O::name().into(), O::schema()));
    O::schemas(schemas);
}

/// `match`: a name read as [`name`] reads one, or a [`MatchGroups`]
/// object; `null` is absent.
fn matching<'de, D: Deserializer<'de>>(d: D) -> Result<Option<WireMatch>, D::Error> {
    struct Either;
    impl<'de> Visitor<'de> for Either {
        type Value = Option<WireMatch>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("\"any\", \"same\" or an object {\"groups\": [...]}")
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
            MatchName::deserialize(de::value::StrDeserializer::<E>::new(name))
                .map(|n| Some(WireMatch::Name(n)))
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            MatchGroups::deserialize(de::value::MapAccessDeserializer::new(map))
                .map(|g| Some(WireMatch::Groups(g)))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Either)
}

/// Fields that override a preset's rules.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RulesObject {
    /// The preset the other fields change; mahjong when absent.
    #[serde(default, deserialize_with = "name")]
    pub preset: Option<PresetName>,
    #[serde(default, deserialize_with = "name")]
    pub movement: Option<MovementName>,
    /// Most straight segments a path may have (a throw, for slide), from
    /// 1; `null` for no limit.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<u32>, minimum = 1)]
    pub max_segments: Option<Option<u32>>,
    /// Whether paths may use the ring of cells around the board.
    pub outside: Option<bool>,
    #[serde(rename = "match", default, deserialize_with = "matching")]
    #[schema(value_type = Option<WireMatch>)]
    pub matching: Option<WireMatch>,
}

/// A name (an enum of unit variants) read from a string, `null` being
/// absent. serde_json takes any other value where an enum should be for
/// broken JSON (a 400); read as a string first, it is the 422 "invalid
/// type" it is.
pub(crate) fn name<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    match Option::<String>::deserialize(d)? {
        Some(name) => {
            T::deserialize(de::value::StringDeserializer::<D::Error>::new(name)).map(Some)
        }
        None => Ok(None),
    }
}

/// Tells a field given as `null` (`Some(None)`) from an absent one.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `rules`: a preset name, or an object whose fields override a preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireRules {
    pub rules: Rules,
    /// The matching groups as written; checked against the board by
    /// [`WireRules::groups`], as a group's form depends on the board's.
    pub groups: Option<GroupList>,
    /// The preset name, or `custom` when fields were overridden: a metrics
    /// label with few values.
    pub label: &'static str,
}

impl Default for WireRules {
    fn default() -> Self {
        WireRules {
            rules: Preset::Mahjong.rules(),
            groups: None,
            label: Preset::Mahjong.name(),
        }
    }
}

impl<'de> Deserialize<'de> for WireRules {
    /// Read as [`HeldRules`] are, the form they were sent in left.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        HeldRules::deserialize(deserializer).map(|held| held.wire)
    }
}

/// `rules` as a held game keeps them: read once, and in the form they
/// were sent in, which the game's answers echo byte for byte: a preset's
/// name, or an object's fields in their order, `null` where `null` was
/// sent, none where none was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldRules {
    wire: WireRules,
    sent: Sent,
}

/// The form the rules were sent in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Sent {
    Preset(PresetName),
    Object(SentObject),
}

/// A rules object as sent, its groups left to [`WireRules::groups`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct SentObject {
    /// The fields sent, in their order: each once, as a repeated one is
    /// refused.
    fields: Vec<Field>,
    /// Each field's value, `None` for `null` where the field was sent.
    preset: Option<PresetName>,
    movement: Option<MovementName>,
    max_segments: Option<u32>,
    outside: Option<bool>,
    /// `match` by its name; `None` for groups (those of [`WireRules`]) or
    /// `null`.
    matching: Option<MatchName>,
}

/// A field of a rules object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Match,
    MaxSegments,
    Movement,
    Outside,
    Preset,
}

impl Field {
    /// Every field, in the order of their names, which is the order a
    /// leaderboard's name writes them in.
    const ALL: [Field; 5] = [
        Field::Match,
        Field::MaxSegments,
        Field::Movement,
        Field::Outside,
        Field::Preset,
    ];

    fn name(self) -> &'static str {
        match self {
            Field::Match => "match",
            Field::MaxSegments => "max_segments",
            Field::Movement => "movement",
            Field::Outside => "outside",
            Field::Preset => "preset",
        }
    }

    fn named(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|field| field.name() == name)
    }
}

impl HeldRules {
    /// The rules as every route reads them.
    pub fn wire(&self) -> &WireRules {
        &self.wire
    }

    /// The rules as sent, every object's fields in the order of their
    /// names: equal rules sent in another order write the same bytes.
    pub(crate) fn sorted(&self) -> SortedRules<'_> {
        SortedRules(self)
    }

    /// The rules as sent, the fields of an object in the order sent, or
    /// in the order of their names when `sorted`.
    fn write<S: Serializer>(&self, serializer: S, sorted: bool) -> Result<S::Ok, S::Error> {
        let object = match &self.sent {
            Sent::Preset(name) => return name.serialize(serializer),
            Sent::Object(object) => object,
        };
        let mut map = serializer.serialize_map(Some(object.fields.len()))?;
        if sorted {
            for field in Field::ALL {
                if object.fields.contains(&field) {
                    self.entry(&mut map, object, field)?;
                }
            }
        } else {
            for &field in &object.fields {
                self.entry(&mut map, object, field)?;
            }
        }
        map.end()
    }

    /// `field` of `object` and its value as sent.
    fn entry<M: SerializeMap>(
        &self,
        map: &mut M,
        object: &SentObject,
        field: Field,
    ) -> Result<(), M::Error> {
        let name = field.name();
        match field {
            Field::Preset => map.serialize_entry(name, &object.preset),
            Field::Movement => map.serialize_entry(name, &object.movement),
            Field::MaxSegments => map.serialize_entry(name, &object.max_segments),
            Field::Outside => map.serialize_entry(name, &object.outside),
            Field::Match => match (object.matching, &self.wire.groups) {
                (Some(matching), _) => map.serialize_entry(name, &matching),
                (None, Some(groups)) => map.serialize_entry(name, &GroupsObject { groups }),
                (None, None) => map.serialize_entry(name, &()),
            },
        }
    }
}

/// `match` as groups.
#[derive(Serialize)]
struct GroupsObject<'a> {
    groups: &'a GroupList,
}

impl Serialize for HeldRules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.write(serializer, false)
    }
}

/// [`HeldRules::sorted`].
pub(crate) struct SortedRules<'a>(&'a HeldRules);

impl Serialize for SortedRules<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.write(serializer, true)
    }
}

impl<'de> Deserialize<'de> for HeldRules {
    /// Either form, each read by its derived type: this only picks which,
    /// and notes the fields of an object in their order.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = HeldRules;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a preset name or an object {preset, movement, max_segments, outside, match}",
                )
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<HeldRules, E> {
                let name = PresetName::deserialize(de::value::StrDeserializer::<E>::new(name))?;
                let preset = Preset::from(name);
                Ok(HeldRules {
                    wire: WireRules {
                        rules: preset.rules(),
                        groups: None,
                        label: preset.name(),
                    },
                    sent: Sent::Preset(name),
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HeldRules, A::Error> {
                let mut fields = Vec::new();
                let object =
                    RulesObject::deserialize(de::value::MapAccessDeserializer::new(Noting {
                        map,
                        fields: &mut fields,
                    }))?;
                let sent = SentObject {
                    fields,
                    preset: object.preset,
                    movement: object.movement,
                    max_segments: object.max_segments.flatten(),
                    outside: object.outside,
                    matching: match &object.matching {
                        Some(WireMatch::Name(name)) => Some(*name),
                        _ => None,
                    },
                };
                let wire = object.rules().map_err(crate::decode::fail)?;
                Ok(HeldRules {
                    wire,
                    sent: Sent::Object(sent),
                })
            }
        }
        deserializer.deserialize_any(Either)
    }
}

/// The map of a rules object, noting each field's name as the derived
/// reader takes it. The name is noted inside the key's own read, so a
/// reader that tracks paths (`serde_path_to_error`) places an unknown
/// field as it did.
struct Noting<'a, A> {
    map: A,
    fields: &'a mut Vec<Field>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Noting<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(NotedKey {
            seed,
            fields: self.fields,
        })
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key read as a string, noted if it names a field, then handed to the
/// derived reader's own key seed `seed`.
struct NotedKey<'a, K> {
    seed: K,
    fields: &'a mut Vec<Field>,
}

impl<'de, K: de::DeserializeSeed<'de>> de::DeserializeSeed<'de> for NotedKey<'_, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: de::DeserializeSeed<'de>> Visitor<'de> for NotedKey<'_, K> {
    type Value = K::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<K::Value, E> {
        if let Some(field) = Field::named(key) {
            self.fields.push(field);
        }
        self.seed
            .deserialize(de::value::StrDeserializer::<E>::new(key))
    }
}

impl utoipa::PartialSchema for WireRules {
    fn schema() -> RefOr<Schema> {
        name_or_object::<PresetName, RulesObject>(
            "A preset name, or an object whose fields override a preset (mahjong when absent).",
        )
    }
}

impl ToSchema for WireRules {
    fn name() -> std::borrow::Cow<'static, str> {
        "Rules".into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        name_and_object_schemas::<PresetName, RulesObject>(schemas);
    }
}

impl RulesObject {
    /// The preset with these overrides, checked.
    fn rules(self) -> Result<WireRules, ApiError> {
        let preset = Preset::from(self.preset.unwrap_or_default());
        let mut rules = preset.rules();
        let overridden = self.movement.is_some()
            || self.max_segments.is_some()
            || self.outside.is_some()
            || self.matching.is_some();
        if let Some(movement) = self.movement {
            rules.movement = match movement {
                MovementName::Line => Movement::Line,
                MovementName::Slide => Movement::Slide,
            };
            if rules.movement == Movement::Slide && self.outside.is_none() {
                rules.outside = false;
            }
        }
        if let Some(max) = self.max_segments {
            if max == Some(0) {
                return Err(ApiError::new(
                    ErrorCode::InvalidRules,
                    "max_segments is 0, expected at least 1 or null for no limit",
                )
                .at("rules.max_segments"));
            }
            rules.max_segments = max;
        }
        if let Some(outside) = self.outside {
            if outside && rules.movement == Movement::Slide {
                return Err(ApiError::new(
                    ErrorCode::InvalidRules,
                    "outside is true with slide movement, expected false: a sliding stone that leaves the board is lost",
                )
                .at("rules.outside"));
            }
            rules.outside = outside;
        }
        let mut groups = None;
        if let Some(matching) = self.matching {
            rules.matching = match matching {
                WireMatch::Name(MatchName::Any) => Match::Any,
                WireMatch::Name(MatchName::Same) => Match::Same,
                WireMatch::Groups(list) => {
                    groups = Some(list.groups);
                    Match::Same
                }
            };
        }
        Ok(WireRules {
            rules,
            groups,
            label: if overridden { "custom" } else { preset.name() },
        })
    }
}

impl WireRules {
    /// Checks `max_segments` against the server's limit.
    pub fn within(&self, limits: &Limits) -> Result<Rules, ApiError> {
        match self.rules.max_segments {
            Some(max) if max > limits.max_segments => Err(ApiError::new(
                ErrorCode::InvalidRules,
                format!(
                    "max_segments is {max}, over this server's limit of {}",
                    limits.max_segments
                ),
            )
            .at("rules.max_segments")),
            _ => Ok(self.rules),
        }
    }
}

impl WireRules {
    /// The matching groups as the engine's, each checked against the form
    /// of the board's rows; no groups when `match` names none.
    pub fn groups(&self, encoding: BoardEncoding) -> Result<Groups, ApiError> {
        let Some(list) = &self.groups else {
            return Ok(Groups::default());
        };
        list.check(encoding)?;
        let groups = match encoding {
            BoardEncoding::Text => {
                Groups::new((0..list.len()).map(|i| list.text[list.span(i)].chars().map(u32::from)))
            }
            BoardEncoding::Numbers => {
                Groups::new((0..list.len()).map(|i| list.numbers[list.span(i)].iter().copied()))
            }
        };
        groups.map_err(|e| match e {
            GroupsError::Empty { group } => group_error(
                group,
                "the group is empty, expected at least one tile type".into(),
            ),
            GroupsError::Twice {
                kind,
                first,
                second,
            } if first == second => group_error(
                second,
                format!(
                    "{} is listed twice, expected each type once",
                    Tile::new(kind, encoding)
                ),
            ),
            GroupsError::Twice {
                kind,
                first,
                second,
            } => group_error(
                second,
                format!(
                    "{} is in groups[{first}] and groups[{second}], expected each type in one group",
                    Tile::new(kind, encoding)
                ),
            ),
            GroupsError::EmptyCell { group } => {
                group_error(group, "the empty cell is not a tile type".into())
            }
        })
    }
}

impl GroupList {
    /// Refuses the first group that is not in the form of the board's
    /// rows, or that holds something other than tile types.
    fn check(&self, encoding: BoardEncoding) -> Result<(), ApiError> {
        match encoding {
            BoardEncoding::Text => {
                let other = self.first_numbers.unwrap_or(self.len());
                for i in 0..other {
                    let text = &self.text[self.span(i)];
                    if let Some(message) = text.chars().find_map(not_a_tile_character) {
                        return Err(group_error(i, message));
                    }
                }
                if other < self.len() {
                    return Err(group_error(
                        other,
                        "an array, expected a string of tile characters: the board has text rows"
                            .into(),
                    ));
                }
            }
            BoardEncoding::Numbers => {
                let other = self.first_text.unwrap_or(self.len());
                if let Some((i, n)) = &self.not_a_tile
                    && *i < other
                {
                    return Err(group_error(
                        *i,
                        format!(
                            "{n} is not a tile, expected a tile number from 1 to {}",
                            u32::MAX
                        ),
                    ));
                }
                if other < self.len() {
                    return Err(group_error(
                        other,
                        "a string, expected an array of tile numbers: the board has number rows"
                            .into(),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A 422 at `rules.match.groups[i]`.
fn group_error(i: usize, message: String) -> ApiError {
    ApiError::new(ErrorCode::InvalidRules, message).at(format!("rules.match.groups[{i}]"))
}

/// Why a character of a text group is not a tile type: an empty cell, or
/// a control character no text row may hold.
fn not_a_tile_character(c: char) -> Option<String> {
    let why = if tile_of_char(c) == EMPTY {
        "an empty cell"
    } else if c.is_control() {
        "a control character"
    } else {
        return None;
    };
    let tile = Tile::new(u32::from(c), BoardEncoding::Text);
    Some(format!("{tile} is {why}, expected tile characters"))
}
