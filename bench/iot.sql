-- IoT insert workload (OrioleDB seed): each client owns ten sensors and
-- each transaction writes one reading per sensor, all at the same time
-- stamp, so (sensor_id, ts) is unique and ts always grows.
INSERT INTO measure (sensor_id, ts, value)
SELECT :client_id * 10 + i, current_timestamp, random()
  FROM generate_series(1, 10) AS i;
