//! Redaction of JSON documents value by value: each string is redacted as
//! text, and the string value of a key with a secret name
//! ([`is_secret_name`]) is replaced whole. The document stays valid JSON
//! whatever its strings hold (`"echo \"token=abc\""` keeps its escapes).

use serde_json::Value;

use super::{MARK, Redactor, is_secret_name};

/// Redacts the strings of `value` in place; how many secrets were replaced.
pub fn redact_value(value: &mut Value, redactor: &Redactor) -> usize {
    match value {
        Value::String(s) => {
            let (out, n) = redactor.redact(s);
            if n > 0 {
                *s = out;
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(|v| redact_value(v, redactor)).sum(),
        Value::Object(map) => map
            .iter_mut()
            .map(|(key, v)| match v {
                Value::String(s) if !s.is_empty() && s != MARK && is_secret_name(key) => {
                    *s = MARK.to_string();
                    1
                }
                _ => redact_value(v, redactor),
            })
            .sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// A serialized JSON document with its secrets redacted value by value, and
/// how many were replaced. A document with none comes back byte for byte;
/// text that is not JSON is redacted as text.
pub fn redact_document(json: &str, redactor: &Redactor) -> (String, usize) {
    // Most documents hold none of the rules' needles: no parse for them.
    // (Needles are plain words, which JSON's escaping leaves as they are.)
    if !redactor.may_hold_secrets(json.as_bytes()) {
        return (json.to_string(), 0);
    }
    let Ok(mut value) = serde_json::from_str::<Value>(json) else {
        return redactor.redact(json);
    };
    let n = redact_value(&mut value, redactor);
    if n == 0 {
        return (json.to_string(), 0);
    }
    match serde_json::to_string(&value) {
        Ok(out) => (out, n),
        Err(_) => redactor.redact(json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_with_a_secret_stays_valid_json() {
        // Issue 32: redacting the serialized text ate the escape before the closing quote.
        let doc = serde_json::json!({"command": "echo \"token=abcdef\"", "exit_code": 0}).to_string();
        let (out, n) = redact_document(&doc, &Redactor::default());
        let parsed: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(parsed["command"], "echo \"token=[REDACTED]\"");
        assert_eq!(n, 1);
    }

    #[test]
    fn every_secret_shape_inside_strings_keeps_the_document_valid() {
        for (text, secret_part) in super::super::tests::SECRETS {
            for wrapped in [text.to_string(), format!("\"{text}\""), format!("'{text}'\n\t\\"), format!("x=\"{text}")] {
                let doc = serde_json::json!({"argv": ["llm-shell", "exec", "--", wrapped], "n": 1}).to_string();
                let (out, _) = redact_document(&doc, &Redactor::default());
                let parsed: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
                assert!(!parsed.to_string().contains(secret_part), "{secret_part} survives in {out}");
            }
        }
    }

    #[test]
    fn secret_keys_lose_their_values_and_other_documents_stay_byte_for_byte() {
        let doc = r#"{"environment":{"DB_PASSWORD":"x1","HOME":"/root"},"ok":true}"#;
        let (out, n) = redact_document(doc, &Redactor::default());
        assert_eq!((out.as_str(), n), (r#"{"environment":{"DB_PASSWORD":"[REDACTED]","HOME":"/root"},"ok":true}"#, 1));
        let plain = r#"{"b":1,   "a":[1.50,"key"]}"#;
        assert_eq!(redact_document(plain, &Redactor::default()), (plain.to_string(), 0));
        assert_eq!(redact_document("not json password=hunter22", &Redactor::default()).1, 1);
    }
}
