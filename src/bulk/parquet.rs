//! Parquet tables, both ways, with the low-level writer and the row reader of the `parquet`
//! crate (no Arrow): [`TableWriter`] buffers columns and writes one row group per
//! [`TableWriter::ROW_GROUP`] rows; [`read_table`] walks a folder's part files in name order
//! (the order Spark writes a sorted output in) and hands each row as named [`Value`]s.

use std::{fs::File, path::Path, sync::Arc};

use parquet::{
    basic::Compression,
    column::writer::ColumnWriter,
    data_type::ByteArray,
    file::{
        properties::WriterProperties, reader::SerializedFileReader, writer::SerializedFileWriter,
    },
    record::Field,
    schema::parser::parse_message_type,
};

use super::BulkError;

/// A column's physical type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `int64`.
    Long,
    /// `int32`.
    Int,
    /// `binary` annotated UTF-8.
    Text,
    /// `binary`.
    Bytes,
}

/// A column of a table: name, type, whether it may be null.
#[derive(Clone, Copy, Debug)]
pub struct ColumnDef {
    /// Column name.
    pub name: &'static str,
    /// Physical type.
    pub kind: Kind,
    /// Whether values may be missing.
    pub optional: bool,
}

/// Shorthand for a [`ColumnDef`].
pub const fn col(name: &'static str, kind: Kind, optional: bool) -> ColumnDef {
    ColumnDef {
        name,
        kind,
        optional,
    }
}

/// One value of a row, as written or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// Missing.
    Null,
    /// An integer (either width).
    Int(i64),
    /// Bytes (text as UTF-8).
    Bytes(Vec<u8>),
}

impl Value {
    /// Text, or `None` for a missing value.
    pub fn text(s: Option<&str>) -> Value {
        s.map_or(Value::Null, |s| Value::Bytes(s.as_bytes().to_vec()))
    }

    /// An integer, or `None`.
    pub fn int(v: Option<i64>) -> Value {
        v.map_or(Value::Null, Value::Int)
    }
}

enum Buffer {
    Long(Vec<i64>),
    Int(Vec<i32>),
    Bytes(Vec<ByteArray>),
}

struct Column {
    def: ColumnDef,
    values: Buffer,
    levels: Vec<i16>,
}

/// Writes rows of a fixed schema to one Parquet file (Snappy-compressed pages).
pub struct TableWriter {
    writer: SerializedFileWriter<File>,
    columns: Vec<Column>,
    rows: usize,
    path: String,
}

fn parquet_err(path: &str, e: impl std::fmt::Display) -> BulkError {
    BulkError(format!("{path}: {e}"))
}

impl TableWriter {
    /// Rows per row group.
    pub const ROW_GROUP: usize = 1 << 18;

    /// Creates `path` for rows of `schema` (the message is named `name`).
    ///
    /// # Errors
    /// [`BulkError`] if the file cannot be created.
    pub fn create(path: &Path, name: &str, schema: &[ColumnDef]) -> Result<TableWriter, BulkError> {
        let shown = path.display().to_string();
        let fields: Vec<String> = schema
            .iter()
            .map(|c| {
                let rep = if c.optional { "optional" } else { "required" };
                let ty = match c.kind {
                    Kind::Long => "int64",
                    Kind::Int => "int32",
                    Kind::Text => "binary",
                    Kind::Bytes => "binary",
                };
                let ann = if c.kind == Kind::Text { " (UTF8)" } else { "" };
                format!("{rep} {ty} {}{ann};", c.name)
            })
            .collect();
        let message = format!("message {name} {{ {} }}", fields.join(" "));
        let schema_type =
            Arc::new(parse_message_type(&message).map_err(|e| parquet_err(&shown, e))?);
        let props = Arc::new(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build(),
        );
        let file = File::create(path).map_err(|e| parquet_err(&shown, e))?;
        let writer = SerializedFileWriter::new(file, schema_type, props)
            .map_err(|e| parquet_err(&shown, e))?;
        let columns = schema
            .iter()
            .map(|&def| Column {
                def,
                values: match def.kind {
                    Kind::Long => Buffer::Long(Vec::new()),
                    Kind::Int => Buffer::Int(Vec::new()),
                    Kind::Text | Kind::Bytes => Buffer::Bytes(Vec::new()),
                },
                levels: Vec::new(),
            })
            .collect();
        Ok(TableWriter {
            writer,
            columns,
            rows: 0,
            path: shown,
        })
    }

    /// Adds a row: one value per column, in schema order.
    ///
    /// # Errors
    /// [`BulkError`] if the row does not fit the schema (a bug of the caller), or writing a
    /// full row group fails.
    pub fn push(&mut self, row: Vec<Value>) -> Result<(), BulkError> {
        if row.len() != self.columns.len() {
            return Err(parquet_err(&self.path, "row of the wrong width"));
        }
        for (c, v) in self.columns.iter_mut().zip(row) {
            let present = !matches!(v, Value::Null);
            if c.def.optional {
                c.levels.push(i16::from(present));
            } else if !present {
                return Err(parquet_err(
                    &self.path,
                    format!("{} is required", c.def.name),
                ));
            }
            match (&mut c.values, v) {
                (_, Value::Null) => {}
                (Buffer::Long(b), Value::Int(i)) => b.push(i),
                (Buffer::Int(b), Value::Int(i)) => b.push(i32::try_from(i).map_err(|_| {
                    parquet_err(&self.path, format!("{} out of range", c.def.name))
                })?),
                (Buffer::Bytes(b), Value::Bytes(x)) => b.push(ByteArray::from(x)),
                _ => {
                    return Err(parquet_err(
                        &self.path,
                        format!("{}: wrong type", c.def.name),
                    ))
                }
            }
        }
        self.rows += 1;
        if self.rows >= Self::ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), BulkError> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let err = |e: parquet::errors::ParquetError| parquet_err(&path, e);
        let mut group = self.writer.next_row_group().map_err(err)?;
        for c in &mut self.columns {
            let Some(mut w) = group.next_column().map_err(err)? else {
                return Err(parquet_err(&path, "fewer columns than the schema"));
            };
            let levels = c.def.optional.then_some(c.levels.as_slice());
            match (w.untyped(), &c.values) {
                (ColumnWriter::Int64ColumnWriter(t), Buffer::Long(v)) => {
                    t.write_batch(v, levels, None).map_err(err)?;
                }
                (ColumnWriter::Int32ColumnWriter(t), Buffer::Int(v)) => {
                    t.write_batch(v, levels, None).map_err(err)?;
                }
                (ColumnWriter::ByteArrayColumnWriter(t), Buffer::Bytes(v)) => {
                    t.write_batch(v, levels, None).map_err(err)?;
                }
                _ => return Err(parquet_err(&path, "column type mismatch")),
            }
            w.close().map_err(err)?;
            c.levels.clear();
            match &mut c.values {
                Buffer::Long(v) => v.clear(),
                Buffer::Int(v) => v.clear(),
                Buffer::Bytes(v) => v.clear(),
            }
        }
        group.close().map_err(err)?;
        self.rows = 0;
        Ok(())
    }

    /// Writes the last row group and the footer.
    ///
    /// # Errors
    /// [`BulkError`] if writing fails.
    pub fn finish(mut self) -> Result<(), BulkError> {
        self.flush()?;
        let path = self.path.clone();
        self.writer.close().map_err(|e| parquet_err(&path, e))?;
        Ok(())
    }
}

/// The Parquet part files of a table folder, in name order (hidden and `_` files such as
/// Spark's `_SUCCESS` left out).
///
/// # Errors
/// [`BulkError`] if the folder cannot be read or holds no part file.
pub fn part_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, BulkError> {
    let shown = dir.display().to_string();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| parquet_err(&shown, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".parquet") && !name.starts_with(['.', '_'])
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(parquet_err(&shown, "no .parquet part file"));
    }
    Ok(files)
}

/// Reads every row of a table folder's part files in order, calling `f` with the row's
/// values by column name and where it is (file, row number within it).
///
/// # Errors
/// [`BulkError`] if a file cannot be read, or `f`'s error.
pub fn read_table(
    dir: &Path,
    mut f: impl FnMut(&Row<'_>) -> Result<(), BulkError>,
) -> Result<u64, BulkError> {
    let mut total = 0;
    for row in TableRows::open(dir)? {
        f(&row?.view())?;
        total += 1;
    }
    Ok(total)
}

/// The rows of a table folder's part files in order, pulled one by one (so that several
/// sorted tables can be walked side by side).
pub struct TableRows {
    files: std::vec::IntoIter<std::path::PathBuf>,
    current: Option<(
        std::rc::Rc<str>,
        parquet::record::reader::RowIter<'static>,
        usize,
    )>,
}

impl TableRows {
    /// The rows of `dir`'s part files.
    ///
    /// # Errors
    /// [`BulkError`] if the folder cannot be read or holds no part file.
    pub fn open(dir: &Path) -> Result<TableRows, BulkError> {
        Ok(TableRows {
            files: part_files(dir)?.into_iter(),
            current: None,
        })
    }
}

impl Iterator for TableRows {
    type Item = Result<OwnedRow, BulkError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((file, rows, n)) = &mut self.current {
                match rows.next() {
                    Some(row) => {
                        let at = *n;
                        *n += 1;
                        return Some(
                            row.map(|data| OwnedRow {
                                file: file.clone(),
                                row: at,
                                data,
                            })
                            .map_err(|e| parquet_err(file, format!("row {at}: {e}"))),
                        );
                    }
                    None => self.current = None,
                }
            }
            let path = self.files.next()?;
            let shown = path.display().to_string();
            let reader = File::open(&path)
                .map_err(|e| parquet_err(&shown, e))
                .and_then(|f| SerializedFileReader::new(f).map_err(|e| parquet_err(&shown, e)));
            match reader {
                Ok(r) => self.current = Some((shown.into(), r.into_iter(), 0)),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// A row of [`TableRows`], owned.
pub struct OwnedRow {
    file: std::rc::Rc<str>,
    row: usize,
    data: parquet::record::Row,
}

impl OwnedRow {
    /// Its values by column name.
    pub fn view(&self) -> Row<'_> {
        Row {
            file: &self.file,
            row: self.row,
            fields: self
                .data
                .get_column_iter()
                .map(|(name, v)| (name.as_str(), v))
                .collect(),
        }
    }
}

/// A row read by [`read_table`].
pub struct Row<'a> {
    file: &'a str,
    row: usize,
    fields: Vec<(&'a str, &'a Field)>,
}

impl Row<'_> {
    /// Whether the row's table has this column.
    pub fn has(&self, name: &str) -> bool {
        self.field(name).is_some()
    }

    fn field(&self, name: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    }

    /// An error naming the file, the row and the column.
    pub fn error(&self, column: &str, why: &str) -> BulkError {
        BulkError(format!("{} row {}: {column}: {why}", self.file, self.row))
    }

    /// An integer column (either width); `None` when null.
    ///
    /// # Errors
    /// [`BulkError`] if the column is missing or not an integer.
    pub fn int(&self, name: &str) -> Result<Option<i64>, BulkError> {
        match self.field(name) {
            None => Err(self.error(name, "no such column")),
            Some(Field::Null) => Ok(None),
            Some(Field::Long(v)) => Ok(Some(*v)),
            Some(Field::Int(v)) => Ok(Some(i64::from(*v))),
            Some(_) => Err(self.error(name, "not an integer")),
        }
    }

    /// A required integer column.
    ///
    /// # Errors
    /// [`BulkError`] if it is missing, null or not an integer.
    pub fn need_int(&self, name: &str) -> Result<i64, BulkError> {
        self.int(name)?.ok_or_else(|| self.error(name, "null"))
    }

    /// A text column; `None` when null.
    ///
    /// # Errors
    /// [`BulkError`] if the column is missing or not text.
    pub fn text(&self, name: &str) -> Result<Option<String>, BulkError> {
        match self.field(name) {
            None => Err(self.error(name, "no such column")),
            Some(Field::Null) => Ok(None),
            Some(Field::Str(s)) => Ok(Some(s.clone())),
            Some(Field::Bytes(b)) => String::from_utf8(b.data().to_vec())
                .map(Some)
                .map_err(|_| self.error(name, "not UTF-8")),
            Some(_) => Err(self.error(name, "not text")),
        }
    }

    /// A list column of (code, count) pairs (Spark's `array<struct<code, n>>`); empty when
    /// null.
    ///
    /// # Errors
    /// [`BulkError`] if the column is missing or not such a list.
    pub fn pairs(&self, name: &str) -> Result<Vec<(u64, u64)>, BulkError> {
        let items = match self.field(name) {
            None => return Err(self.error(name, "no such column")),
            Some(Field::Null) => return Ok(Vec::new()),
            Some(Field::ListInternal(list)) => list.elements(),
            Some(_) => return Err(self.error(name, "not a list")),
        };
        let number = |f: &Field| match f {
            Field::Long(v) => u64::try_from(*v).ok(),
            Field::Int(v) => u64::try_from(*v).ok(),
            _ => None,
        };
        items
            .iter()
            .map(|item| match item {
                Field::Group(pair) => {
                    let mut values = pair.get_column_iter().map(|(_, v)| number(v));
                    match (values.next(), values.next(), values.next()) {
                        (Some(Some(a)), Some(Some(b)), None) => Ok((a, b)),
                        _ => Err(self.error(name, "not a (code, count) pair")),
                    }
                }
                _ => Err(self.error(name, "not a (code, count) pair")),
            })
            .collect()
    }

    /// A bytes column; `None` when null.
    ///
    /// # Errors
    /// [`BulkError`] if the column is missing or not bytes.
    pub fn bytes(&self, name: &str) -> Result<Option<Vec<u8>>, BulkError> {
        match self.field(name) {
            None => Err(self.error(name, "no such column")),
            Some(Field::Null) => Ok(None),
            Some(Field::Bytes(b)) => Ok(Some(b.data().to_vec())),
            Some(Field::Str(s)) => Ok(Some(s.as_bytes().to_vec())),
            Some(_) => Err(self.error(name, "not bytes")),
        }
    }
}

/// The integer columns of one row group, in the order asked, each as long as the row
/// group (see [`read_int_columns`]).
pub struct IntColumns {
    /// The part file.
    pub file: String,
    /// The row group's first row within its file.
    pub first_row: u64,
    /// One vector per column asked, in that order.
    pub columns: Vec<Vec<i64>>,
}

/// One row group of a part file: (file, its index among the file's row groups, its first
/// row within the file).
type RowGroupAt = (std::path::PathBuf, usize, u64);

/// Reads the integer columns `names` (`int64` or `int32`, no nulls) of a table folder's part
/// files with the typed column readers (a batch of values at a time, not a row object per
/// row), several row groups at once on rayon's threads (as many at a time as the pool has
/// threads, so memory holds that many row groups), and hands them to `f` in file and row
/// group order. Returns the rows read.
///
/// # Errors
/// [`BulkError`] if a file cannot be read, a column is missing, not an integer or has a
/// null; or `f`'s error.
pub fn read_int_columns(
    dir: &Path,
    names: &[&str],
    mut f: impl FnMut(IntColumns) -> Result<(), BulkError>,
) -> Result<u64, BulkError> {
    use parquet::file::reader::FileReader;
    use rayon::prelude::*;

    let mut groups: Vec<RowGroupAt> = Vec::new();
    for path in part_files(dir)? {
        let shown = path.display().to_string();
        let reader = File::open(&path)
            .map_err(|e| parquet_err(&shown, e))
            .and_then(|f| SerializedFileReader::new(f).map_err(|e| parquet_err(&shown, e)))?;
        let mut first = 0u64;
        for (i, rg) in reader.metadata().row_groups().iter().enumerate() {
            groups.push((path.clone(), i, first));
            first += u64::try_from(rg.num_rows()).unwrap_or(0);
        }
    }
    let at_once = rayon::current_num_threads().max(1);
    let mut total = 0;
    for window in groups.chunks(at_once) {
        let decoded: Vec<Result<IntColumns, BulkError>> = window
            .par_iter()
            .map(|(path, i, first)| read_row_group(path, *i, *first, names))
            .collect();
        for cols in decoded {
            let cols = cols?;
            total += cols.columns.first().map_or(0, |c| c.len() as u64);
            f(cols)?;
        }
    }
    Ok(total)
}

/// The columns `names` of row group `index` of `path` (see [`read_int_columns`]).
fn read_row_group(
    path: &Path,
    index: usize,
    first_row: u64,
    names: &[&str],
) -> Result<IntColumns, BulkError> {
    use parquet::{column::reader::ColumnReader, file::reader::FileReader};

    let shown = path.display().to_string();
    let err = |e: &dyn std::fmt::Display| parquet_err(&shown, e);
    let reader = File::open(path)
        .map_err(|e| err(&e))
        .and_then(|f| SerializedFileReader::new(f).map_err(|e| err(&e)))?;
    let rg = reader.get_row_group(index).map_err(|e| err(&e))?;
    let rows = usize::try_from(rg.metadata().num_rows()).map_err(|e| err(&e))?;
    let schema = rg.metadata().schema_descr();
    let mut columns = Vec::with_capacity(names.len());
    for name in names {
        let at = (0..schema.num_columns())
            .find(|&c| schema.column(c).name() == *name)
            .ok_or_else(|| err(&format!("no column {name}")))?;
        let optional = schema.column(at).max_def_level() > 0;
        let read = |got: parquet::errors::Result<Vec<i64>>| {
            got.map_err(|e| err(&format!("column {name}: {e}")))
        };
        let values: Vec<i64> = match rg.get_column_reader(at).map_err(|e| err(&e))? {
            ColumnReader::Int64ColumnReader(mut r) => read(all_values(&mut r, rows, optional))?,
            ColumnReader::Int32ColumnReader(mut r) => read(
                all_values(&mut r, rows, optional).map(|v| v.into_iter().map(i64::from).collect()),
            )?,
            _ => return Err(err(&format!("column {name}: not an integer"))),
        };
        if values.len() != rows {
            return Err(err(&format!(
                "column {name}: {} values in a row group of {rows} rows (a null?)",
                values.len()
            )));
        }
        columns.push(values);
    }
    Ok(IntColumns {
        file: shown,
        first_row,
        columns,
    })
}

/// Every non-null value of a column chunk of `rows` rows (fewer values than rows: nulls).
fn all_values<T: parquet::data_type::DataType>(
    r: &mut parquet::column::reader::ColumnReaderImpl<T>,
    rows: usize,
    optional: bool,
) -> parquet::errors::Result<Vec<T::T>> {
    let mut values = Vec::with_capacity(rows);
    let mut defs = Vec::new();
    while values.len() < rows {
        let (records, _, _) = r.read_records(
            rows - values.len(),
            optional.then_some(&mut defs),
            None,
            &mut values,
        )?;
        if records == 0 {
            break;
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `rows` (key, mv; a `None` key is a null) as part file `name` of `dir`.
    fn part(dir: &Path, name: &str, rows: impl Iterator<Item = (Option<i64>, i64)>) {
        let schema = [col("key", Kind::Long, true), col("mv", Kind::Int, false)];
        let mut w = TableWriter::create(&dir.join(name), "t", &schema).unwrap();
        for (key, mv) in rows {
            w.push(vec![Value::int(key), Value::Int(mv)]).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn integer_columns_read_back_in_file_and_row_group_order() {
        let dir = tempfile::tempdir().unwrap();
        // Two row groups in the first file, one small group in the second.
        let n = TableWriter::ROW_GROUP as i64 + 1000;
        part(
            dir.path(),
            "part-0.parquet",
            (0..n).map(|i| (Some(i * 7 - 3), i % 5)),
        );
        part(
            dir.path(),
            "part-1.parquet",
            (n..n + 5).map(|i| (Some(-i), 65535)),
        );
        let mut keys = Vec::new();
        let mut moves = Vec::new();
        let mut starts = Vec::new();
        let total = read_int_columns(dir.path(), &["mv", "key"], |g| {
            starts.push((g.file.ends_with("part-1.parquet"), g.first_row));
            moves.extend_from_slice(&g.columns[0]);
            keys.extend_from_slice(&g.columns[1]);
            Ok(())
        })
        .unwrap();
        assert_eq!(total, n as u64 + 5);
        let want_keys: Vec<i64> = (0..n)
            .map(|i| i * 7 - 3)
            .chain((n..n + 5).map(|i| -i))
            .collect();
        let want_moves: Vec<i64> = (0..n).map(|i| i % 5).chain([65535; 5]).collect();
        assert_eq!(keys, want_keys);
        assert_eq!(moves, want_moves);
        assert_eq!(
            starts,
            [
                (false, 0),
                (false, TableWriter::ROW_GROUP as u64),
                (true, 0)
            ]
        );
    }

    #[test]
    fn a_null_a_missing_column_and_a_text_column_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        part(
            dir.path(),
            "part-0.parquet",
            [(Some(1), 2), (None, 3)].into_iter(),
        );
        let err = |names: &[&str]| {
            read_int_columns(dir.path(), names, |_| Ok(()))
                .err()
                .map(|e| e.0)
                .unwrap_or_default()
        };
        assert!(err(&["key"]).contains("a null"), "{}", err(&["key"]));
        assert!(err(&["id"]).contains("no column id"));
        assert!(err(&["mv"]).is_empty(), "{}", err(&["mv"]));
        let text = tempfile::tempdir().unwrap();
        let mut w = TableWriter::create(
            &text.path().join("p.parquet"),
            "t",
            &[col("s", Kind::Text, false)],
        )
        .unwrap();
        w.push(vec![Value::text(Some("a"))]).unwrap();
        w.finish().unwrap();
        let e = read_int_columns(text.path(), &["s"], |_| Ok(()))
            .err()
            .unwrap();
        assert!(e.0.contains("not an integer"), "{}", e.0);
    }
}
