//! What a route answers: status, content type and body, independent of the HTTP library.

use std::{ops::Deref, sync::Arc};

use serde::Serialize;

/// The bytes of an answer's body: an asset of the binary, bytes of this answer alone, or
/// bytes shared with the answer cache (a hit is not copied). Reads as a `[u8]`.
#[derive(Clone)]
pub struct Body(Bytes);

#[derive(Clone)]
enum Bytes {
    Static(&'static [u8]),
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Body {
    /// The body as bytes that can be shared (an owned body is moved into them once).
    pub(crate) fn into_shared(self) -> Arc<[u8]> {
        match self.0 {
            Bytes::Shared(a) => a,
            Bytes::Owned(v) => v.into(),
            Bytes::Static(s) => s.into(),
        }
    }

    /// The body as the HTTP library's bytes, without a copy.
    pub(crate) fn into_bytes(self) -> bytes::Bytes {
        match self.0 {
            Bytes::Static(s) => bytes::Bytes::from_static(s),
            Bytes::Owned(v) => bytes::Bytes::from(v),
            Bytes::Shared(a) => bytes::Bytes::from_owner(a),
        }
    }

    /// A body of bytes shared with others (the cache).
    pub(crate) fn shared(bytes: Arc<[u8]>) -> Body {
        Body(Bytes::Shared(bytes))
    }
}

impl Deref for Body {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Bytes::Static(s) => s,
            Bytes::Owned(v) => v,
            Bytes::Shared(a) => a,
        }
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        **self == **other
    }
}

impl Eq for Body {}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Body({})", String::from_utf8_lossy(self))
    }
}

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// `Content-Type` header.
    pub content_type: &'static str,
    /// Body.
    pub body: Body,
}

/// JSON content type.
pub const JSON: &str = "application/json; charset=utf-8";

impl Reply {
    /// A 200 with a JSON body; a value that cannot be serialised becomes a 500.
    pub fn json<T: Serialize>(value: &T) -> Reply {
        match serde_json::to_vec(value) {
            Ok(body) => Reply {
                status: 200,
                content_type: JSON,
                body: Body(Bytes::Owned(body)),
            },
            Err(e) => Reply::error(500, &format!("cannot encode the answer: {e}")),
        }
    }

    /// An error with a JSON body `{"error": message, "status": code}`.
    ///
    /// ```
    /// use qipu::web::Reply;
    /// let r = Reply::error(400, "bad `fen`");
    /// assert_eq!(r.status, 400);
    /// assert_eq!(&*r.body, br#"{"error":"bad `fen`","status":400}"#);
    /// ```
    pub fn error(status: u16, message: &str) -> Reply {
        #[derive(Serialize)]
        struct Message<'a> {
            error: &'a str,
            status: u16,
        }
        let body = serde_json::to_vec(&Message {
            error: message,
            status,
        })
        .unwrap_or_else(|_| br#"{"error":"internal error","status":500}"#.to_vec());
        Reply {
            status,
            content_type: JSON,
            body: Body(Bytes::Owned(body)),
        }
    }

    /// A static asset.
    pub fn asset(content_type: &'static str, body: &'static [u8]) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: Body(Bytes::Static(body)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_read_as_their_bytes_however_held() {
        let owned = Reply::json(&[1, 2]);
        assert_eq!(&*owned.body, b"[1,2]");
        let shared = Body::shared(owned.body.clone().into_shared());
        assert_eq!(shared, owned.body);
        assert_eq!(&*Reply::asset("text/plain", b"x").body, b"x");
        assert_eq!(&*Reply::asset("text/plain", b"x").body.into_shared(), b"x");
    }
}
