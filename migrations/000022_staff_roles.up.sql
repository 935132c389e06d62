-- Staff roles per theatre: what an account may do is decided per theatre,
-- as a manager (today's theatre admin, plus the theatre's staff), the box
-- office (counter sales, one booking's refund, a ticket's resending) or an
-- usher (check-in and the show's occupancy). Every grant made so far was a
-- theatre admin's, so it becomes a manager's.
ALTER TABLE theatre_admins RENAME TO theatre_staff;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_admins_pkey TO theatre_staff_pkey;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_admins_theatre_id_fkey TO theatre_staff_theatre_id_fkey;
ALTER TABLE theatre_staff RENAME CONSTRAINT theatre_admins_user_id_fkey TO theatre_staff_user_id_fkey;
ALTER TABLE theatre_staff ADD COLUMN role text NOT NULL DEFAULT 'manager'
    CONSTRAINT theatre_staff_role_check CHECK (role IN ('manager', 'box_office', 'usher'));
ALTER TABLE theatre_staff ALTER COLUMN role DROP DEFAULT;
