DROP TABLE checkin_scans;
DROP TABLE checkins;
