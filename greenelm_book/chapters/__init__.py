"""The chapters: one module per chapter, named as the chapter, with the science it needs beside it."""
