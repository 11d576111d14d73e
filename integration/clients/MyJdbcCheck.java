// MyJdbcCheck: runs queries through MariaDB Connector/J and prints one line
// per query (column labels and types, then each row's values as strings),
// so a test can compare airlock with a direct connection.
//   java -cp mariadb-java-client.jar:DIR MyJdbcCheck URL USER PASSWORD < queries.txt
// Autocommit is off: each query runs in a transaction that is then
// committed, as an application would. Each query runs twice as a
// PreparedStatement (Connector/J formats it on the client side).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

public class MyJdbcCheck {
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
					for (int run = 0; run < 2; run++) {
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
					sb.append("ERROR ").append(e.getErrorCode()).append(' ').append(e.getMessage().split("\n")[0]);
				}
				System.out.println(sb);
			}
			System.out.println("valid " + c.isValid(5));
		}
	}
}
