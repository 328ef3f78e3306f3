//! What a route answers: status, content type and body, independent of the HTTP library.

use std::borrow::Cow;

use serde::Serialize;

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// `Content-Type` header.
    pub content_type: &'static str,
    /// Body.
    pub body: Cow<'static, [u8]>,
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
                body: Cow::Owned(body),
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
        struct Body<'a> {
            error: &'a str,
            status: u16,
        }
        let body = serde_json::to_vec(&Body {
            error: message,
            status,
        })
        .unwrap_or_else(|_| br#"{"error":"internal error","status":500}"#.to_vec());
        Reply {
            status,
            content_type: JSON,
            body: Cow::Owned(body),
        }
    }

    /// A static asset.
    pub fn asset(content_type: &'static str, body: &'static [u8]) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: Cow::Borrowed(body),
        }
    }
}
