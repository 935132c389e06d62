/** Tailwind CSS 3 configuration of Marquee. The Makefile's `generate`
 * builds web/styles/input.css into static/css/app.css from it. */
const colors = require('tailwindcss/colors');

/** @type {import('tailwindcss').Config} */
module.exports = {
  content: [
    './components/**/*.templ',
    './internal/**/*.templ',
    './web/**/*.go',
    '!./web/**/*_test.go',
    './static/js/**/*.js',
  ],
  theme: {
    extend: {
      colors: {
        brand: colors.rose,
        ink: colors.slate,
      },
      fontFamily: {
        sans: ['system-ui', '-apple-system', 'Segoe UI', 'Roboto', 'Helvetica Neue', 'Arial', 'Noto Sans', 'sans-serif'],
      },
    },
  },
  plugins: [],
};
