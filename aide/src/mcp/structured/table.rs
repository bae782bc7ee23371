//! Long record lists as tables: each list's columns said once (the
//! document's `columns`, by the list's field), each record a row of values
//! in that order, a trailing absent value left off. What a model reads of a
//! hundred records is then mostly their values, not their field names.

use serde_json::{Map, Value};

/// The field of the compact document that names each table's columns.
pub(super) const COLUMNS: &str = "columns";

/// The ordered union of the records' fields: a table's columns.
pub(super) fn columns<'a>(records: impl IntoIterator<Item = &'a Map<String, Value>>) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for record in records {
        for name in record.keys() {
            if !columns.contains(name) {
                columns.push(name.clone());
            }
        }
    }
    columns
}

/// `records` as rows of `columns` (null where a record has no such field,
/// nothing after its last value).
pub(super) fn rows(records: Vec<Map<String, Value>>, columns: &[String]) -> Vec<Value> {
    records
        .into_iter()
        .map(|mut record| {
            let mut row: Vec<Value> = columns.iter().map(|c| record.remove(c).unwrap_or(Value::Null)).collect();
            while row.last().is_some_and(Value::is_null) {
                row.pop();
            }
            Value::Array(row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn objects(v: Value) -> Vec<Map<String, Value>> {
        v.as_array().unwrap().iter().map(|r| r.as_object().cloned().unwrap()).collect()
    }

    #[test]
    fn records_become_rows_of_the_union_of_their_fields() {
        let records =
            objects(json!([{ "line": 1, "text": "a" }, { "line": 2, "enclosing": "f", "text": "b" }, { "line": 3 }]));
        let columns = columns(&records);
        assert_eq!(columns, ["line", "text", "enclosing"]);
        assert_eq!(Value::Array(rows(records, &columns)), json!([[1, "a"], [2, "b", "f"], [3]]));
    }
}
