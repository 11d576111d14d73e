// JdbcCheck: runs queries through a JDBC driver (PgJDBC or MariaDB
// Connector/J, whichever jar is on the class path) and prints one line per
// result (column labels and types, then each row's values as strings), so
// a test can compare airlock with a direct connection.
//   java -cp DRIVER.jar:DIR JdbcCheck URL USER PASSWORD [RUNS [errno]] < queries.txt
// Each input line is one query, run RUNS times (default 5, so PgJDBC
// switches to a named server-side statement) as a PreparedStatement with
// autocommit off, then committed. An error prints its SQLSTATE, or with
// "errno" the vendor error code (MySQL's errno). A line "#tables" prints
// the tables DatabaseMetaData.getTables lists, "#columns T" the columns
// getColumns lists for table T: what ORMs and tools reflect. "#fetch N Q"
// reads Q with setFetchSize(N) (a portal read N rows at a time); "#describe
// Q" prints what PreparedStatement.getMetaData and getParameterMetaData
// report before Q runs (a Describe of the statement).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

public class JdbcCheck {
	public static void main(String[] args) throws Exception {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
		int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
		boolean errno = args.length > 4 && args[4].equals("errno");
		try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
			c.setAutoCommit(false);
			String q;
			while ((q = in.readLine()) != null) {
				if (q.isEmpty())
					continue;
				StringBuilder sb = new StringBuilder();
				if (q.startsWith("#fetch ")) {
					System.out.println(fetch(c, q));
					continue;
				}
				if (q.startsWith("#describe ")) {
					System.out.println(describe(c, q));
					continue;
				}
				if (q.startsWith("#")) {
					System.out.println(metadata(c, q));
					continue;
				}
				try (PreparedStatement p = c.prepareStatement(q)) {
					for (int run = 0; run < runs; run++) {
						sb.setLength(0);
						try (ResultSet r = p.executeQuery()) {
							ResultSetMetaData md = r.getMetaData();
							for (int i = 1; i <= md.getColumnCount(); i++)
								sb.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(' ');
							sb.append('|');
							rows(sb, r, md.getColumnCount());
						}
					}
					c.commit();
				} catch (SQLException e) {
					c.rollback();
					sb.append("ERROR ").append(errno ? String.valueOf(e.getErrorCode()) : e.getSQLState())
						.append(' ').append(e.getMessage().split("\n")[0]);
				}
				System.out.println(sb);
			}
			System.out.println("valid " + c.isValid(5));
		}
	}

	/* A failed step: its SQLSTATE and first line, and the transaction rolled back for the next. */
	static void failed(Connection c, StringBuilder sb, SQLException e) {
		sb.append(" ERROR ").append(e.getSQLState()).append(' ').append(e.getMessage().split("\n")[0]);
		try {
			c.rollback();
		} catch (SQLException ignored) {
		}
	}

	/* What a directive does with its prepared statement, appending to sb. */
	interface Step {
		void run(PreparedStatement p) throws SQLException;
	}

	/* Prepares sql, runs step on it and commits; a failure is appended (failed). Returns sb's text. */
	static String prepared(Connection c, String sql, StringBuilder sb, Step step) {
		try (PreparedStatement p = c.prepareStatement(sql)) {
			step.run(p);
			c.commit();
		} catch (SQLException e) {
			failed(c, sb, e);
		}
		return sb.toString();
	}

	/* Each row of r: its values as strings, each after a space. */
	static void rows(StringBuilder sb, ResultSet r, int ncols) throws SQLException {
		while (r.next())
			for (int i = 1; i <= ncols; i++)
				sb.append(' ').append(r.getString(i));
	}

	static String fetch(Connection c, String q) {
		String[] parts = q.split(" ", 3);
		StringBuilder sb = new StringBuilder("#fetch ").append(parts[1]).append(':');
		return prepared(c, parts[2], sb, p -> {
			p.setFetchSize(Integer.parseInt(parts[1]));
			try (ResultSet r = p.executeQuery()) {
				rows(sb, r, r.getMetaData().getColumnCount());
			}
		});
	}

	static String describe(Connection c, String q) {
		StringBuilder sb = new StringBuilder("#describe:");
		return prepared(c, q.substring(10), sb, p -> {
			ResultSetMetaData md = p.getMetaData();
			for (int i = 1; md != null && i <= md.getColumnCount(); i++)
				sb.append(' ').append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i));
			ParameterMetaData pm = p.getParameterMetaData();
			sb.append(" |");
			for (int i = 1; i <= pm.getParameterCount(); i++)
				sb.append(' ').append(pm.getParameterTypeName(i));
		});
	}

	static String metadata(Connection c, String q) {
		StringBuilder sb = new StringBuilder(q).append(':');
		try {
			DatabaseMetaData md = c.getMetaData();
			ResultSet r = q.equals("#tables") ? md.getTables(c.getCatalog(), null, "%", new String[] {"TABLE", "VIEW"})
							  : md.getColumns(c.getCatalog(), null, q.substring(9), "%");
			while (r.next())
				sb.append(' ').append(r.getString(q.equals("#tables") ? "TABLE_NAME" : "COLUMN_NAME"));
			r.close();
			c.commit();
		} catch (SQLException e) {
			sb.append(" ERROR ").append(e.getSQLState()).append(' ').append(e.getMessage().split("\n")[0]);
		}
		return sb.toString();
	}
}
