//! Every SQL statement the store runs, by name. The tables are described in
//! `schema/README.md` and created by `schema/*.sql`; the other files of the store prepare
//! these constants (cached per connection) and never write SQL text of their own.

/// Stores a game unless its hash or its identity is already stored (then no row changes).
pub(super) const INSERT_GAME: &str = "INSERT OR IGNORE INTO games (hash, variant, source, \
    source_index, event, site, round, date, first, second, first_rating, second_rating, result, \
    ecco, opening, variation, first_formation, second_formation, start_fen, plies, moves, \
    time_base, time_increment, speed, mode, termination, identity, richness, header_hash, \
    truncated_ply) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
    ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30)";

/// Every source path with its id.
pub(super) const SOURCES: &str = "SELECT path, id FROM sources";
/// A new source path.
pub(super) const INSERT_SOURCE: &str = "INSERT INTO sources (path) VALUES (?1)";
/// Drops a source path no stored game came from.
pub(super) const DELETE_SOURCE: &str = "DELETE FROM sources WHERE id = ?1";

/// The range row a key falls in: the greatest start at or below it.
pub(super) const RANGE_AT: &str = "SELECT start, entries FROM position_ranges WHERE start <= ?1 \
    ORDER BY start DESC LIMIT 1";
/// The start of the range row after a key's.
pub(super) const RANGE_AFTER: &str =
    "SELECT start FROM position_ranges WHERE start > ?1 ORDER BY start LIMIT 1";
/// Writes a range row.
pub(super) const REPLACE_RANGE: &str =
    "INSERT OR REPLACE INTO position_ranges (start, entries) VALUES (?1, ?2)";
/// A page of range rows in key order: `?2` rows from the start `?1` on.
pub(super) const RANGES_FROM: &str =
    "SELECT start, entries FROM position_ranges WHERE start >= ?1 ORDER BY start LIMIT ?2";

/// Writes a busy position's row.
pub(super) const REPLACE_POSITION: &str =
    "INSERT OR REPLACE INTO positions (key, summary, links, buckets) VALUES (?1, ?2, ?3, ?4)";
/// A busy position's summary, links and buckets.
pub(super) const BUSY_ROW: &str = "SELECT summary, links, buckets FROM positions WHERE key = ?1";
/// A busy position's buckets alone.
pub(super) const BUSY_BUCKETS: &str = "SELECT buckets FROM positions WHERE key = ?1";

/// A player's id by folded name.
pub(super) const PLAYER_BY_FOLDED: &str = "SELECT id FROM players WHERE folded = ?1";
/// A new player (their name forms and games are added next).
pub(super) const INSERT_PLAYER: &str =
    "INSERT INTO players (folded, name, games) VALUES (?1, ?2, 0)";
/// A game of a player on a side.
pub(super) const INSERT_PLAYER_GAME: &str =
    "INSERT OR IGNORE INTO player_games (player, side, game) VALUES (?1, ?2, ?3)";
/// Counts games under one written form of a player's name.
pub(super) const ADD_PLAYER_NAME: &str = "INSERT INTO player_names (player, name, games) \
    VALUES (?1, ?2, ?3) ON CONFLICT (player, name) DO UPDATE SET games = games + excluded.games";
/// Refreshes a player's games and most frequent written name.
pub(super) const UPDATE_PLAYER: &str = "UPDATE players SET \
    games = (SELECT sum(games) FROM player_names WHERE player = ?1), \
    name = (SELECT name FROM player_names WHERE player = ?1 ORDER BY games DESC, name LIMIT 1) \
    WHERE id = ?1";
/// A player's games, with the side they played.
pub(super) const PLAYER_GAMES: &str = "SELECT side, game FROM player_games WHERE player = ?1";
/// A game's variant, start and moves.
pub(super) const GAME_LINE: &str = "SELECT variant, start_fen, moves FROM games WHERE id = ?1";

/// A game's facts (see `game_facts`).
pub(super) const GAME_FACTS: &str = "SELECT facts FROM game_facts WHERE id = ?1";
/// The facts of the games in an id range, by id.
pub(super) const GAME_FACTS_BETWEEN: &str =
    "SELECT id, facts FROM game_facts WHERE id BETWEEN ?1 AND ?2 ORDER BY id";
/// The facts of some games, by id: `?1` is a JSON array of their ids (one statement instead
/// of a lookup each).
pub(super) const GAME_FACTS_OF: &str =
    "SELECT id, facts FROM game_facts WHERE id IN (SELECT value FROM json_each(?1)) ORDER BY id";
/// Stores a game's facts.
pub(super) const INSERT_GAME_FACTS: &str =
    "INSERT OR REPLACE INTO game_facts (id, facts) VALUES (?1, ?2)";
/// Every busy position's key.
pub(super) const BUSY_KEYS: &str = "SELECT key FROM positions ORDER BY key";
/// A busy position's links alone.
pub(super) const BUSY_LINKS: &str = "SELECT links FROM positions WHERE key = ?1";
/// Rewrites a busy position's summary and buckets.
pub(super) const UPDATE_BUSY_BLOBS: &str =
    "UPDATE positions SET summary = ?2, buckets = ?3 WHERE key = ?1";
/// Rewrites a busy position's buckets.
pub(super) const UPDATE_BUSY_BUCKETS: &str = "UPDATE positions SET buckets = ?2 WHERE key = ?1";
/// A busy position's summary and buckets (not its links).
pub(super) const BUSY_SUMMARY_BUCKETS: &str =
    "SELECT summary, buckets FROM positions WHERE key = ?1";
/// A busy position's summary alone.
pub(super) const BUSY_SUMMARY: &str = "SELECT summary FROM positions WHERE key = ?1";

/// A game as the statistics read it (see `read::through_row`), by id.
pub(super) const THROUGH_BY_ID: &str = "SELECT id, first, second, first_rating, second_rating, \
    result, date, event, ecco, first_formation, second_formation, variant, speed, mode, termination \
    FROM games WHERE id = ?1";
/// The same for the games of an id range, in id order.
pub(super) const THROUGH_BETWEEN: &str = "SELECT id, first, second, first_rating, \
    second_rating, result, date, event, ecco, first_formation, second_formation, variant, speed, mode, \
    termination FROM games WHERE id BETWEEN ?1 AND ?2 ORDER BY id";

/// A whole stored game with its source path (see `read::games::stored_game`), by id.
pub(super) const GAME_BY_ID: &str = "SELECT g.id, g.variant, s.path, g.source_index, g.event, \
    g.site, g.round, g.date, g.first, g.second, g.first_rating, g.second_rating, g.result, \
    g.ecco, g.opening, g.variation, g.first_formation, g.second_formation, g.start_fen, g.moves, \
    g.time_base, g.time_increment, g.speed, g.mode, g.termination FROM games g LEFT JOIN sources s ON s.id = g.source WHERE g.id = ?1";
/// The next page of whole games of a variant after an id.
pub(super) const GAMES_PAGE: &str = "SELECT g.id, g.variant, s.path, g.source_index, g.event, \
    g.site, g.round, g.date, g.first, g.second, g.first_rating, g.second_rating, g.result, \
    g.ecco, g.opening, g.variation, g.first_formation, g.second_formation, g.start_fen, g.moves, \
    g.time_base, g.time_increment, g.speed, g.mode, g.termination FROM games g LEFT JOIN sources s ON s.id = g.source WHERE g.variant = ?1 AND g.id > ?2 \
    ORDER BY g.id LIMIT 1000";
/// Whether a game of a variant starts from a FEN (the partial index `games_fen_starts`).
pub(super) const ANY_FEN_GAME_OF: &str =
    "SELECT EXISTS (SELECT 1 FROM games WHERE variant = ?1 AND start_fen IS NOT NULL)";
/// Games of a variant.
pub(super) const COUNT_GAMES: &str = "SELECT count(*) FROM games WHERE variant = ?1";
/// The games kept up to a bad move (`truncated_ply` set).
pub(super) const COUNT_TRUNCATED: &str =
    "SELECT count(*) FROM games WHERE truncated_ply IS NOT NULL";
/// The file's size in bytes.
pub(super) const FILE_BYTES: &str =
    "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size";
/// The ten most frequent events.
pub(super) const TOP_EVENTS: &str = "SELECT event, count(*) AS n FROM games \
    WHERE event IS NOT NULL AND event <> '' GROUP BY event ORDER BY n DESC, event LIMIT 10";

/// A `meta` setting.
pub(super) const META_GET: &str = "SELECT value FROM meta WHERE name = ?1";
/// Records a `meta` setting.
/// (A setting another process recorded first is kept: the caller reads it back.)
pub(super) const META_SET: &str =
    "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING";

/// Begins a transaction that reads (one snapshot for the statements until [`END_READ`]).
pub(super) const BEGIN_READ: &str = "BEGIN";
/// Ends it.
pub(super) const END_READ: &str = "COMMIT";
/// Empties the `WAL` into the main file.
pub(super) const CHECKPOINT: &str = "PRAGMA wal_checkpoint(TRUNCATE)";
/// The schema version.
pub(super) const USER_VERSION: &str = "PRAGMA user_version";
/// Gives freed pages back to the file system.
pub(super) const VACUUM: &str = "VACUUM";

/// Whether any game is stored (`qipu load` writes a fresh database only into one without).
pub(super) const ANY_GAME: &str = "SELECT EXISTS (SELECT 1 FROM games)";
/// Whether any position statistics are stored.
pub(super) const ANY_RANGE: &str =
    "SELECT EXISTS (SELECT 1 FROM position_ranges) OR EXISTS (SELECT 1 FROM positions)";
/// The stored game of an identity (see `copies`): id, richness, content hash.
pub(super) const GAME_BY_IDENTITY: &str =
    "SELECT id, richness, hash, header_hash FROM games WHERE identity = ?1";
/// A game's player names as stored.
pub(super) const GAME_NAMES: &str = "SELECT first, second FROM games WHERE id = ?1";
/// A stored game takes the metadata of a richer copy (unless another game has its hash).
pub(super) const TAKE_COPY: &str = "UPDATE OR IGNORE games SET hash = ?2, source = ?3, \
    source_index = ?4, event = ?5, site = ?6, round = ?7, date = ?8, first = ?9, second = ?10, \
    first_rating = ?11, second_rating = ?12, ecco = ?13, opening = ?14, variation = ?15, \
    first_formation = ?16, second_formation = ?17, time_base = ?18, time_increment = ?19, \
    speed = ?20, mode = ?21, termination = ?22, richness = ?23, header_hash = ?24, \
    start_fen = ?25 WHERE id = ?1";
/// Takes a game of a player on a side off the index.
pub(super) const DELETE_PLAYER_GAME: &str =
    "DELETE FROM player_games WHERE player = ?1 AND side = ?2 AND game = ?3";
/// One game less under a written form of a player's name.
pub(super) const SUB_PLAYER_NAME: &str =
    "UPDATE player_names SET games = games - 1 WHERE player = ?1 AND name = ?2";
/// Drops a player's written forms that no game has any more.
pub(super) const DROP_EMPTY_PLAYER_NAMES: &str =
    "DELETE FROM player_names WHERE player = ?1 AND games <= 0";
/// How many written forms a player has.
pub(super) const PLAYER_NAME_ROWS: &str = "SELECT count(*) FROM player_names WHERE player = ?1";
/// Drops a player without games.
pub(super) const DELETE_PLAYER: &str = "DELETE FROM players WHERE id = ?1";
/// Records a game's identity, richness and content hash (schema-6 migration).
pub(super) const SET_IDENTITY: &str =
    "UPDATE games SET identity = ?2, richness = ?3, hash = ?4, header_hash = ?5 WHERE id = ?1";
/// A page of stored lines after an id (schema-12 migration): id, variant, start, moves.
pub(super) const LINES_PAGE: &str = "SELECT id, variant, start_fen, moves FROM games \
    WHERE id > ?1 ORDER BY id LIMIT 10000";
/// Rewrites a game's moves blob (schema-12 migration).
pub(super) const SET_MOVES: &str = "UPDATE games SET moves = ?2 WHERE id = ?1";
/// Removes a game (a poorer copy, in the schema-6 migration, before the statistics are
/// rebuilt).
pub(super) const DELETE_GAME: &str = "DELETE FROM games WHERE id = ?1";
/// One game per identity (created once the copies are merged).
pub(super) const IDENTITY_INDEX: &str = "CREATE UNIQUE INDEX games_identity ON games (identity)";

/// One player's name as written most often and games.
pub(super) const PLAYER_NAME_GAMES: &str = "SELECT name, games FROM players WHERE id = ?1";
/// Every player with the name written most often and their games (for `formats::persons`).
pub(super) const PLAYER_NAMES_GAMES: &str = "SELECT id, name, games, folded FROM players";
/// The user's decisions on persons, oldest first (schema 17).
pub(super) const PERSON_RULES: &str =
    "SELECT id, kind, person, name, origin FROM person_rules ORDER BY id";
/// Records a decision on persons.
pub(super) const ADD_PERSON_RULE: &str =
    "INSERT OR IGNORE INTO person_rules (kind, person, name, origin) VALUES (?1, ?2, ?3, ?4)";
/// Forgets a decision on persons.
pub(super) const DELETE_PERSON_RULE: &str = "DELETE FROM person_rules WHERE id = ?1";
/// The newest decision's id (0 when none).
pub(super) const LAST_PERSON_RULE: &str = "SELECT coalesce(max(id), 0) FROM person_rules";
/// The id of the player of a folded name.
pub(super) const PLAYER_OF_FOLDED: &str = "SELECT id FROM players WHERE folded = ?1";
/// A player's games with each opponent: game, opponent (player id), the game's Red and
/// Black as written, date and event.
pub(super) const PLAYER_MEETINGS: &str = "SELECT a.game, b.player, g.first, g.second, \
    g.date, g.event FROM player_games a JOIN player_games b ON b.game = a.game \
    AND b.player != a.player JOIN games g ON g.id = a.game WHERE a.player = ?1 ORDER BY a.game";
/// Every (game, player) pair of the index, for who met whom.
pub(super) const GAME_PLAYERS: &str = "SELECT game, player FROM player_games";
/// The players of the person a player (perhaps gone) named, and of the person it is.
pub(super) const PLAYERS_OF_PERSON: &str = "SELECT id FROM players WHERE person = ?1 \
    OR person = (SELECT person FROM players WHERE id = ?1)";
/// The player that names a player's person.
pub(super) const PERSON_OF_PLAYER: &str = "SELECT person FROM players WHERE id = ?1";
/// Sets a player's person (only when it changes).
pub(super) const SET_PERSON: &str =
    "UPDATE players SET person = ?2 WHERE id = ?1 AND person IS NOT ?2";
/// The players (id, name as written most often, folded name, games, person) that are one
/// person with the player of a folded name, most games first.
pub(super) const PERSON_OF_FOLDED: &str = "SELECT p.id, p.name, p.folded, p.games, \
    coalesce(p.person, p.id) FROM players h JOIN players p ON p.person = h.person \
    WHERE h.folded = ?1 \
    UNION SELECT id, name, folded, games, coalesce(person, id) FROM players WHERE folded = ?1 \
    ORDER BY 4 DESC, 2";
/// The players (id, name, folded name, games) of a person, most games first.
pub(super) const PERSON_SPELLINGS: &str = "SELECT id, name, folded, games FROM players \
    WHERE person = ?1 ORDER BY games DESC, name";
/// Persons (the naming player's id, and the person's games) with a name whose folded form
/// contains a folded pattern, most games first.
pub(super) const FIND_PERSONS: &str = "SELECT h.id, \
    (SELECT sum(p.games) FROM players p WHERE p.person = h.id) AS g \
    FROM players h WHERE h.person = h.id AND EXISTS (SELECT 1 FROM players s \
    WHERE s.person = h.id AND instr(s.folded, ?1) > 0) ORDER BY g DESC, h.name LIMIT ?2";
/// Every seat of every game: game, player, the game's date and event (for the evidence of
/// `players --suggest`).
pub(super) const PLAYER_GAME_FACTS: &str = "SELECT pg.game, pg.player, g.date, g.event \
    FROM player_games pg JOIN games g ON g.id = pg.game";
/// Every player: id, name, folded name, person, games (for a name that is no stored one).
pub(super) const ALL_PLAYERS: &str =
    "SELECT id, name, folded, coalesce(person, id), games FROM players";

/// A player's games for the dossier (see `dossier`): the columns of [`THROUGH_BY_ID`], then
/// the side the player had, the start and the moves.
pub(super) const PLAYER_DOSSIER_GAMES: &str = "SELECT g.id, g.first, g.second, g.first_rating, \
    g.second_rating, g.result, g.date, g.event, g.ecco, g.first_formation, g.second_formation, \
    g.variant, g.speed, g.mode, g.termination, me.side, g.start_fen, g.moves \
    FROM player_games me JOIN games g ON g.id = me.game WHERE me.player = ?1";
/// The person (the naming player's id and name as written) of a folded name.
pub(super) const PERSON_HEAD_OF_FOLDED: &str = "SELECT h.id, h.name FROM players p \
    JOIN players h ON h.id = coalesce(p.person, p.id) WHERE p.folded = ?1";

/// The segments that count games (see `segments`): id, first and last game, oldest first.
pub(super) const LIVE_SEGMENTS: &str =
    "SELECT id, first_game, last_game FROM segments WHERE games > 0 ORDER BY id";
/// Every segment that counts games, for the compaction (`compact`): id, first and last
/// game, games, sealed; oldest first.
pub(super) const SEGMENTS_COUNTED: &str = "SELECT id, first_game, last_game, games, sealed \
    FROM segments WHERE games > 0 ORDER BY id";
/// A segment that counts the games of the segments compacted into it (which are deleted).
pub(super) const COMPACTED_SEGMENT: &str = "UPDATE segments SET first_game = ?2, \
    last_game = ?3, games = ?4, sealed = 1 WHERE id = ?1";
/// A segment compacted into another.
pub(super) const DELETE_SEGMENT: &str = "DELETE FROM segments WHERE id = ?1";
/// Drops the tables of a segment (renamed by `segments::Tables::sql`).
pub(super) const DROP_SEGMENT_TABLES: &str = "DROP TABLE IF EXISTS positions; \
    DROP TABLE IF EXISTS position_ranges; DROP TABLE IF EXISTS position_lists;";
/// The last segment: id, games, sealed.
pub(super) const LAST_SEGMENT: &str =
    "SELECT id, games, sealed FROM segments ORDER BY id DESC LIMIT 1";
/// Seals a segment.
pub(super) const SEAL_SEGMENT: &str = "UPDATE segments SET sealed = 1 WHERE id = ?1";
/// Seals the segments that count games and are open.
pub(super) const SEAL_OPEN_SEGMENTS: &str =
    "UPDATE segments SET sealed = 1 WHERE sealed = 0 AND games > 0";
/// A new, empty segment.
pub(super) const ADD_SEGMENT: &str = "INSERT INTO segments (id) VALUES (?1)";
/// A segment counts a batch's games.
pub(super) const COUNT_IN_SEGMENT: &str = "UPDATE segments SET games = games + ?4, \
    first_game = coalesce(first_game, ?2), last_game = max(coalesce(last_game, ?3), ?3) \
    WHERE id = ?1";
/// A segment's statistics after a bulk load into an empty database: segment 1 counts every
/// game, and is sealed only when it holds ?1 games or more (so that a later import or load
/// goes on in it, as it would after an import); the segments after it count none.
pub(super) const LOADED_SEGMENT: &str = "UPDATE segments SET \
    first_game = (SELECT min(id) FROM games), last_game = (SELECT max(id) FROM games), \
    games = (SELECT count(*) FROM games), sealed = ((SELECT count(*) FROM games) >= ?1) \
    WHERE id = 1";
/// See [`LOADED_SEGMENT`]: the segments after the first, emptied and sealed.
pub(super) const LOADED_LATER_SEGMENTS: &str = "UPDATE segments SET first_game = NULL, \
    last_game = NULL, games = 0, sealed = 1 WHERE id > 1";
/// The tables of a segment after the first, as segment 1's (`schema/002`, `003`, `004`,
/// `011`) with the names of segment 1 (`segments::Tables::sql` renames them).
pub(super) const CREATE_SEGMENT_TABLES: &str = "\
    CREATE TABLE positions (key INTEGER PRIMARY KEY, summary BLOB, links BLOB NOT NULL, \
        buckets BLOB); \
    CREATE TABLE position_ranges (start INTEGER PRIMARY KEY, entries BLOB NOT NULL); \
    CREATE TABLE position_lists (key INTEGER PRIMARY KEY, lists BLOB NOT NULL);";
