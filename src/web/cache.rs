//! A shared cache of answers (request target → JSON body) for the database routes.
//!
//! The database may change while the server runs (an import beside it), so the cache watches
//! the database files: when the size or modification time of the file or of its `-wal`
//! journal changes, everything is dropped. The check is a `stat` of two files, done at most
//! every [`Cache::CHECK_EVERY`]; answers can thus be that much older than the database.
//! Memory is bounded with two generations: when the young one is full it becomes the old one
//! and the previous old one is dropped; a hit in the old one moves the entry back to the young.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant, SystemTime},
};

use super::reply::{Body, Reply, JSON};

/// What identifies a version of the database files.
type Stamp = Vec<Option<(u64, SystemTime)>>;

#[derive(Debug)]
struct Inner {
    young: HashMap<String, Arc<[u8]>>,
    old: HashMap<String, Arc<[u8]>>,
    young_bytes: usize,
    stamp: Stamp,
    checked: Instant,
}

/// The cache. Cheap to share between worker threads.
#[derive(Debug)]
pub struct Cache {
    inner: Mutex<Inner>,
    files: Vec<PathBuf>,
    max_bytes: usize,
}

fn stamp(files: &[PathBuf]) -> Stamp {
    files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .and_then(|m| Some((m.len(), m.modified().ok()?)))
        })
        .collect()
}

/// The database file and its `-wal` journal (none without a database).
fn db_files(db: Option<&Path>) -> Vec<PathBuf> {
    db.map(|p| {
        let mut wal = p.as_os_str().to_owned();
        wal.push("-wal");
        vec![p.to_path_buf(), PathBuf::from(wal)]
    })
    .unwrap_or_default()
}

/// The version of the database files, as a number that changes when they change (size and
/// modification time of the file and its journal, checked at most every
/// [`Cache::CHECK_EVERY`]): what the `ETag` of an answer carries beside its body's hash.
#[derive(Debug)]
pub struct DbVersion {
    files: Vec<PathBuf>,
    state: Mutex<(u64, Instant)>,
}

impl DbVersion {
    /// The version of the database at `db` (always 0 without one).
    pub fn new(db: Option<&Path>) -> DbVersion {
        let files = db_files(db);
        let now = hash_of(&stamp(&files));
        DbVersion {
            files,
            state: Mutex::new((now, Instant::now())),
        }
    }

    /// The current version.
    pub fn current(&self) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.1.elapsed() >= Cache::CHECK_EVERY {
            *state = (hash_of(&stamp(&self.files)), Instant::now());
        }
        state.0
    }
}

/// A 64-bit hash (SipHash with fixed keys: the same value in every run).
pub fn hash_of<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(value)
}

impl Cache {
    /// How often the database files are checked for changes.
    pub const CHECK_EVERY: Duration = Duration::from_millis(250);

    /// A cache for answers read from the database at `db` (none: answers never go stale),
    /// holding about `max_bytes` of bodies (twice that at most).
    pub fn new(db: Option<&Path>, max_bytes: usize) -> Cache {
        let files = db_files(db);
        Cache {
            inner: Mutex::new(Inner {
                young: HashMap::new(),
                old: HashMap::new(),
                young_bytes: 0,
                stamp: stamp(&files),
                checked: Instant::now(),
            }),
            files,
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves only a cache behind: keep using it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops everything if the database files changed since the last check.
    fn revalidate(&self, inner: &mut Inner) {
        if inner.checked.elapsed() < Self::CHECK_EVERY {
            return;
        }
        inner.checked = Instant::now();
        let now = stamp(&self.files);
        if now != inner.stamp {
            inner.stamp = now;
            inner.young.clear();
            inner.old.clear();
            inner.young_bytes = 0;
        }
    }

    /// The cached body for a request target.
    pub fn get(&self, key: &str) -> Option<Arc<[u8]>> {
        let mut inner = self.lock();
        self.revalidate(&mut inner);
        if let Some(v) = inner.young.get(key) {
            return Some(v.clone());
        }
        let v = inner.old.remove(key)?;
        Self::insert(&mut inner, self.max_bytes, key.to_string(), v.clone());
        Some(v)
    }

    /// The cached answer for a request target: a `200` with the stored JSON body.
    pub fn answer(&self, key: &str) -> Option<Reply> {
        self.get(key).map(|body| Reply {
            status: 200,
            content_type: JSON,
            body: Body::shared(body),
        })
    }

    /// Stores a body.
    pub fn put(&self, key: &str, body: Arc<[u8]>) {
        if body.len() > self.max_bytes {
            return;
        }
        let mut inner = self.lock();
        Self::insert(&mut inner, self.max_bytes, key.to_string(), body);
    }

    fn insert(inner: &mut Inner, max_bytes: usize, key: String, body: Arc<[u8]>) {
        let key_len = key.len();
        let size = key_len + body.len();
        if inner.young_bytes + size > max_bytes {
            inner.old = std::mem::take(&mut inner.young);
            inner.young_bytes = 0;
        }
        inner.young_bytes += size;
        if let Some(prev) = inner.young.insert(key, body) {
            inner.young_bytes = inner.young_bytes.saturating_sub(key_len + prev.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_found_under_its_target_only() {
        let cache = Cache::new(None, 1 << 20);
        cache.put("/api/explore?moves=h2e2", b"{}"[..].into());
        assert_eq!(
            cache.get("/api/explore?moves=h2e2").as_deref(),
            Some(&b"{}"[..])
        );
        assert!(cache.get("/api/explore").is_none());
        let hit = cache.answer("/api/explore?moves=h2e2").unwrap();
        assert_eq!((hit.status, &*hit.body), (200, &b"{}"[..]));
    }

    #[test]
    fn bounded_by_two_generations() {
        let cache = Cache::new(None, 100);
        for i in 0..50 {
            cache.put(&format!("k{i:02}"), vec![b'x'; 20].into());
        }
        let kept = (0..50)
            .filter(|i| cache.get(&format!("k{i:02}")).is_some())
            .count();
        assert!(kept > 0 && kept <= 10, "{kept}");
        assert!(cache.get("k49").is_some());
        assert!(cache.get("k00").is_none());
        cache.put("huge", vec![0; 1000].into());
        assert!(cache.get("huge").is_none());
    }

    #[test]
    fn dropped_when_the_database_changes() {
        let dir = std::env::temp_dir().join(format!("qipu-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("x.db");
        std::fs::write(&db, b"one").unwrap();
        let cache = Cache::new(Some(&db), 1 << 20);
        cache.put("a", b"1"[..].into());
        assert!(cache.get("a").is_some());
        // A write beside the server: the -wal file appears.
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        std::fs::write(&wal, b"frames").unwrap();
        std::thread::sleep(Cache::CHECK_EVERY + Duration::from_millis(50));
        assert!(cache.get("a").is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
