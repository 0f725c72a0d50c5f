import unittest
from text import is_palindrome

class T(unittest.TestCase):
    def test_cases(self):
        self.assertTrue(is_palindrome('A man, a plan, a canal: Panama'))
        self.assertTrue(is_palindrome(''))
        self.assertFalse(is_palindrome('hello'))
