//! A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: the browser reads
//! commands on fd 3 and writes answers and events on fd 4, each a JSON text ended by a NUL.
//! The two descriptors are named pipes handed over by `sh`, so no unsafe code is needed.

use std::{
    fs::{File, OpenOptions},
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::mpsc::{self, Receiver},
    thread,
    time::{Duration, Instant},
};

use serde_json::{json, Value};

/// The browser binary: `$CHROMIUM`, else the first of the usual names found on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A running headless browser.
pub struct Browser {
    child: Child,
    to_browser: File,
    from_browser: Receiver<Value>,
    next_id: u64,
    _dir: TempDir,
}

/// A folder removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    /// Starts the browser with a fresh profile.
    pub fn launch(chromium: &Path) -> Browser {
        Browser::launch_with_env(chromium, &[])
    }

    /// [`Browser::launch`] with these environment variables set for the browser (e.g. a
    /// `FONTCONFIG_FILE` that shows it other fonts than the machine's).
    pub fn launch_with_env(chromium: &Path, env: &[(&str, &Path)]) -> Browser {
        // One folder per browser: tests launch browsers in parallel in one process.
        static LAUNCHED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = LAUNCHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("qipu-e2e-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("profile")).unwrap();
        let dir = TempDir(dir);
        let fifo_in = dir.0.join("in");
        let fifo_out = dir.0.join("out");
        for f in [&fifo_in, &fifo_out] {
            let ok = Command::new("mkfifo").arg(f).status().unwrap().success();
            assert!(ok, "mkfifo failed");
        }
        let child = Command::new("sh")
            .arg("-c")
            .arg(r#"in="$1"; out="$2"; shift 2; exec "$@" 3<"$in" 4>"$out""#)
            .arg("sh")
            .arg(&fifo_in)
            .arg(&fifo_out)
            .arg(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "--window-size=1200,900",
            ])
            .arg(format!(
                "--user-data-dir={}",
                dir.0.join("profile").display()
            ))
            .arg("about:blank")
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Same order as the shell opens them, so neither side blocks forever.
        let to_browser = OpenOptions::new().write(true).open(&fifo_in).unwrap();
        let from = File::open(&fifo_out).unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(from);
            loop {
                let mut buf = Vec::new();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        buf.pop();
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                            if tx.send(v).is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        });
        Browser {
            child,
            to_browser,
            from_browser: rx,
            next_id: 1,
            _dir: dir,
        }
    }

    /// Sends a command (to a page session if given) and waits for its answer.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to_browser.write_all(&bytes).unwrap();
        self.to_browser.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .from_browser
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    panic!("{method} failed: {e}");
                }
                return v["result"].clone();
            }
        }
    }

    /// Opens a page and attaches to it; returns the session id.
    pub fn open(&mut self, url: &str) -> String {
        let target = self.call(None, "Target.createTarget", json!({"url": url}));
        let id = target["targetId"].as_str().unwrap().to_string();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        attached["sessionId"].as_str().unwrap().to_string()
    }

    /// Evaluates a JavaScript expression in the page and returns its value.
    pub fn eval(&mut self, session: &str, expr: &str) -> Value {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("script failed: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until a JavaScript expression is true (an exception counts as not yet).
    pub fn wait_for(&mut self, session: &str, expr: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let guarded =
            format!("(() => {{ try {{ return !!({expr}); }} catch (e) {{ return false; }} }})()");
        while Instant::now() < deadline {
            if self.eval(session, &guarded) == json!(true) {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        panic!("timed out waiting for {what}");
    }

    /// A real mouse click (press and release) at page coordinates.
    pub fn click(&mut self, session: &str, x: f64, y: f64) {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                Some(session),
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Clicks the centre of the first element matching a CSS selector.
    pub fn click_selector(&mut self, session: &str, selector: &str) {
        let js = format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
            sel = serde_json::to_string(selector).unwrap()
        );
        let at = self.eval(session, &js);
        let (x, y) = match (at[0].as_f64(), at[1].as_f64()) {
            (Some(x), Some(y)) => (x, y),
            _ => panic!("no element {selector}"),
        };
        self.click(session, x, y);
    }

    /// Sets the viewport size.
    pub fn viewport(&mut self, session: &str, width: u32, height: u32, mobile: bool) {
        self.call(
            Some(session),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
    }

    /// Saves a PNG screenshot of the whole page.
    pub fn screenshot(&mut self, session: &str, path: &Path) {
        let r = self.call(
            Some(session),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
        );
        let data = base64_decode(r["data"].as_str().unwrap());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, data).unwrap();
    }
}

impl Browser {
    /// A PNG screenshot of the part of the page an element covers (CSS pixels, scale 1).
    pub fn screenshot_element(&mut self, session: &str, selector: &str) -> Vec<u8> {
        let rect = self.eval(
            session,
            &format!(
                "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); \
                 return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; }})()"
            ),
        );
        let n = |i: usize| rect[i].as_f64().unwrap();
        assert!(n(2) > 0.0 && n(3) > 0.0, "{selector} is not shown: {rect}");
        let r = self.call(
            Some(session),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true,
                   "clip": {"x": n(0), "y": n(1), "width": n(2), "height": n(3), "scale": 1}}),
        );
        base64_decode(r["data"].as_str().unwrap())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (with padding), as the protocol sends binary data.
fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 byte {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

#[test]
fn base64_decodes() {
    assert_eq!(base64_decode("cWlwdQ=="), b"qipu");
    assert_eq!(base64_decode("5qOL6LCx"), "棋谱".as_bytes());
    assert_eq!(base64_decode("YWJj"), b"abc");
}
