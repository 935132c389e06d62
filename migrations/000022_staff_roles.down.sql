-- Back to theatre admins only: a grant of less than a manager's would
-- become a theatre admin's, more power than was given, so it goes.
DELETE FROM theatre_staff WHERE role <> 'manager';
ALTER TABLE theatre_staff DROP COLUMN role;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_staff_pkey TO theatre_admins_pkey;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_staff_theatre_id_fkey TO theatre_admins_theatre_id_fkey;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_staff_user_id_fkey TO theatre_admins_user_id_fkey;
ALTER TABLE theatre_staff RENAME TO theatre_admins;
