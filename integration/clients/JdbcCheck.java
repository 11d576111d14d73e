// JdbcCheck: runs queries through PgJDBC and prints one line per result
// (column labels and types, then each row's values as strings), so a test
// can compare airlock with a direct connection.
//   java -cp postgresql.jar:DIR JdbcCheck URL USER PASSWORD < queries.txt
// Each input line is one query; "?"-free statements run as PreparedStatement
// (PgJDBC always uses the extended protocol), five times each so the
// driver switches to a named server-side statement.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

public class JdbcCheck {
	public static void main(String[] args) throws Exception {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
		try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
			c.setAutoCommit(false);
			String q;
			while ((q = in.readLine()) != null) {
				if (q.isEmpty())
					continue;
				StringBuilder sb = new StringBuilder();
				try (PreparedStatement p = c.prepareStatement(q)) {
					for (int run = 0; run < 5; run++) {
						sb.setLength(0);
						try (ResultSet r = p.executeQuery()) {
							ResultSetMetaData md = r.getMetaData();
							for (int i = 1; i <= md.getColumnCount(); i++)
								sb.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(' ');
							sb.append('|');
							while (r.next())
								for (int i = 1; i <= md.getColumnCount(); i++)
									sb.append(' ').append(r.getString(i));
						}
					}
					c.commit();
				} catch (SQLException e) {
					c.rollback();
					sb.append("ERROR ").append(e.getSQLState()).append(' ').append(e.getMessage().split("\n")[0]);
				}
				System.out.println(sb);
			}
			System.out.println("valid " + c.isValid(5));
		}
	}
}
