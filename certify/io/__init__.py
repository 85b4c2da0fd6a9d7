"""Reading and writing networks: the file formats (:mod:`.loader`) and networkx graphs (:mod:`.graph`)."""
