//! The little SQL both backends share: typed parameter and column values, and one
//! interface over a SQLite connection and a PostgreSQL client or transaction, so the
//! schema, its migrations and the record queries are written once.
//!
//! Queries are written with SQLite's numbered parameters (`?1`, `?2`); PostgreSQL gets
//! them as `$1`, `$2`. Integers are 64-bit (`BIGINT` on PostgreSQL), reals are doubles.

/// A parameter or a column value. Nulls carry their type: PostgreSQL checks a
/// parameter's type even when it is null.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

impl Value {
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(Some(s.into()))
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => *v,
            _ => None,
        }
    }

    pub fn as_real(&self) -> Option<f64> {
        match self {
            Value::Real(v) => *v,
            Value::Int(v) => v.map(|i| i as f64),
            _ => None,
        }
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(v) => v.as_deref(),
            _ => None,
        }
    }
}

/// Which SQL dialect a connection speaks, for the few places where they differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// Replaces the schema's type tokens: `{id}` (an auto-numbered primary key), `{int}`,
    /// `{real}`, and `{now}` (the server's clock in Unix seconds).
    pub fn render(self, sql: &str) -> String {
        let (id, int, real, now) = match self {
            Dialect::Sqlite => (
                "INTEGER PRIMARY KEY",
                "INTEGER",
                "REAL",
                "((julianday('now') - 2440587.5) * 86400.0)",
            ),
            Dialect::Postgres => (
                "BIGSERIAL PRIMARY KEY",
                "BIGINT",
                "DOUBLE PRECISION",
                "(extract(epoch from clock_timestamp())::float8)",
            ),
        };
        let sql = sql
            .replace("{id}", id)
            .replace("{int}", int)
            .replace("{real}", real)
            .replace("{now}", now);
        match self {
            Dialect::Sqlite => sql,
            // No query of ours has a literal `?`.
            Dialect::Postgres => sql.replace('?', "$"),
        }
    }
}

/// Runs SQL on one of the backends.
pub trait Sql {
    fn dialect(&self) -> Dialect;
    /// Runs a statement; returns the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String>;
    /// Runs a query; returns its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, String>;
    /// Runs statements separated by `;`, without parameters.
    fn batch(&mut self, sql: &str) -> Result<(), String>;
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Value::Int(v) => v.to_sql(),
            Value::Real(v) => v.to_sql(),
            Value::Text(v) => v.to_sql(),
        }
    }
}

impl Sql for &rusqlite::Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String> {
        rusqlite::Connection::execute(
            self,
            &Dialect::Sqlite.render(sql),
            rusqlite::params_from_iter(params),
        )
        .map(|n| n as u64)
        .map_err(|e| e.to_string())
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, String> {
        let mut stmt = self
            .prepare(&Dialect::Sqlite.render(sql))
            .map_err(|e| e.to_string())?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                use rusqlite::types::ValueRef;
                values.push(match row.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => Value::Text(None),
                    ValueRef::Integer(v) => Value::Int(Some(v)),
                    ValueRef::Real(v) => Value::Real(Some(v)),
                    ValueRef::Text(t) => Value::Text(Some(String::from_utf8_lossy(t).into())),
                    ValueRef::Blob(_) => Value::Text(None),
                });
            }
            out.push(values);
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), String> {
        self.execute_batch(&Dialect::Sqlite.render(sql))
            .map_err(|e| e.to_string())
    }
}

fn pg_params(params: &[Value]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Value::Int(v) => Box::new(*v),
                Value::Real(v) => Box::new(*v),
                Value::Text(v) => Box::new(v.clone()),
            }
        })
        .collect()
}

fn pg_rows(rows: Vec<postgres::Row>) -> Result<Vec<Vec<Value>>, String> {
    use postgres::types::Type;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let mut values = Vec::with_capacity(row.len());
        for (i, column) in row.columns().iter().enumerate() {
            let ty = column.type_();
            let value = if *ty == Type::INT8 {
                Value::Int(row.try_get(i).map_err(|e| e.to_string())?)
            } else if *ty == Type::INT4 {
                Value::Int(
                    row.try_get::<_, Option<i32>>(i)
                        .map_err(|e| e.to_string())?
                        .map(i64::from),
                )
            } else if *ty == Type::FLOAT8 {
                Value::Real(row.try_get(i).map_err(|e| e.to_string())?)
            } else if *ty == Type::TEXT || *ty == Type::VARCHAR || *ty == Type::NAME {
                Value::Text(row.try_get(i).map_err(|e| e.to_string())?)
            } else {
                return Err(format!(
                    "column '{}' has the unexpected type {ty}",
                    column.name()
                ));
            };
            values.push(value);
        }
        out.push(values);
    }
    Ok(out)
}

fn pg_refs(
    boxed: &[Box<dyn postgres::types::ToSql + Sync>],
) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    boxed.iter().map(|b| b.as_ref()).collect()
}

/// PostgreSQL errors with their detail (the crate's `Display` says only "db error").
pub fn pg_error(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    // The crate's message names the kind ("invalid configuration"); the cause says what.
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        message = format!("{message}: {cause}");
        source = cause.source();
    }
    if message.contains("password missing") {
        message.push_str(
            " (the server asks for a password: set PGPASSWORD or add a line to ~/.pgpass or PGPASSFILE)",
        );
    }
    message
}

macro_rules! impl_pg_sql {
    ($ty:ty) => {
        impl Sql for $ty {
            fn dialect(&self) -> Dialect {
                Dialect::Postgres
            }

            fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String> {
                let boxed = pg_params(params);
                <$ty>::execute(
                    self,
                    Dialect::Postgres.render(sql).as_str(),
                    &pg_refs(&boxed),
                )
                .map_err(|e| pg_error(&e))
            }

            fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, String> {
                let boxed = pg_params(params);
                let rows = <$ty>::query(
                    self,
                    Dialect::Postgres.render(sql).as_str(),
                    &pg_refs(&boxed),
                )
                .map_err(|e| pg_error(&e))?;
                pg_rows(rows)
            }

            fn batch(&mut self, sql: &str) -> Result<(), String> {
                <$ty>::batch_execute(self, &Dialect::Postgres.render(sql)).map_err(|e| pg_error(&e))
            }
        }
    };
}

impl_pg_sql!(postgres::Client);
impl_pg_sql!(postgres::Transaction<'_>);

/// Statements prepared once on one connection and run by name afterwards: a statement
/// given as text costs the client crate a round trip to prepare it each time. Belongs to
/// one connection: clear it when reconnecting.
#[derive(Default)]
pub struct Prepared {
    statements: std::collections::HashMap<&'static str, postgres::Statement>,
}

impl Prepared {
    /// Forgets the statements (they died with their connection).
    pub fn clear(&mut self) {
        self.statements.clear();
    }

    /// Runs `sql` (in the shared dialect) on `client`, preparing it the first time.
    pub fn query(
        &mut self,
        client: &mut postgres::Client,
        sql: &'static str,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>, String> {
        let statement = match self.statements.get(sql) {
            Some(s) => s.clone(),
            None => {
                let s = client
                    .prepare(&Dialect::Postgres.render(sql))
                    .map_err(|e| pg_error(&e))?;
                self.statements.insert(sql, s.clone());
                s
            }
        };
        let boxed = pg_params(params);
        let rows = client
            .query(&statement, &pg_refs(&boxed))
            .map_err(|e| pg_error(&e))?;
        pg_rows(rows)
    }
}
