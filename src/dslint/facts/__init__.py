"""What dslint knows about each file and about the training setup as a whole."""
